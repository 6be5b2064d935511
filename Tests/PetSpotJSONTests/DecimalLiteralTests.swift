import PetSpotJSON
import Testing

@Suite("Exact decimals")
struct DecimalLiteralTests {
    @Test("5 decimals, half away from zero, from the digits sent", arguments: [
        ("52.2296756", 5_222_968),
        ("-33.8688197", -3_386_882),
        ("0.000005", 1),
        ("-0.000005", -1),
        ("0.0000049999", 0),
        ("90", 9_000_000),
        ("1.234565", 123_457),
        ("1e-5", 1),
        ("12.5e1", 12_500_000),
        ("0", 0),
        ("-0", 0),
    ])
    func scaled(text: String, expected: Int) {
        #expect(DecimalLiteral(parsing: text)?.scaled(decimals: 5) == expected)
    }

    @Test("a Double is read from its shortest text, without binary noise", arguments: [
        (52.2296756, 5_222_968),
        (-33.8688197, -3_386_882),
        (0.1 + 0.2, 30_000),
        (1.000005, 100_001),
    ])
    func fromDouble(value: Double, expected: Int) {
        #expect(DecimalLiteral(value)?.scaled(decimals: 5) == expected)
    }

    @Test("lenient parsing is for typed text only", arguments: [
        (" 52.1 ", true, true),
        ("+5", true, true),
        (".5", true, true),
        ("5.", true, true),
        (" 52.1 ", false, false),
        ("+5", false, false),
        ("abc", true, false),
        ("", true, false),
        ("1e", true, false),
        ("--1", true, false),
    ])
    func lenient(text: String, lenient: Bool, parses: Bool) {
        #expect((DecimalLiteral(parsing: text, lenient: lenient) != nil) == parses)
    }

    @Test("exact whole numbers", arguments: [
        ("3", 3), ("3.0", 3), ("3e2", 300), ("-40", -40),
    ] as [(String, Int)])
    func exactInt(text: String, expected: Int) {
        #expect(DecimalLiteral(parsing: text)?.exactInt == expected)
    }

    @Test("no whole number", arguments: ["2.5", "1e400", "123456789012345678901234567890"])
    func notExactInt(text: String) {
        #expect(DecimalLiteral(parsing: text)?.exactInt == nil)
    }

    @Test("comparison against bounds", arguments: [
        ("90", 90, 0), ("90.00001", 90, 1), ("89.99999", 90, -1), ("-90.00001", -90, -1), ("1e400", 180, 1), ("-1e400", -180, -1),
    ] as [(String, Int, Int)])
    func compare(text: String, bound: Int, expected: Int) {
        #expect(DecimalLiteral(parsing: text)?.compare(to: bound) == expected)
    }

    @Test("fixed-point text keeps every decimal", arguments: [
        (5_222_968, "52.22968"), (-1, "-0.00001"), (9_000_000, "90.00000"), (0, "0.00000"),
    ])
    func fixedPoint(scaled: Int, text: String) {
        #expect(fixedPointText(scaled, decimals: 5) == text)
    }
}
