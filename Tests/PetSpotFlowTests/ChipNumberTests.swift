import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Step 1: chip number")
struct ChipNumberTests {
    @Test(
        "only decimal digits of any script are kept, as ASCII, at most 15",
        arguments: [
            ("", ""),
            ("12345", "12345"),
            ("123456789012345", "123456789012345"),
            ("1234567890123456", "123456789012345"),
            ("12345-67890-12345", "123456789012345"),
            ("12 345 abc 678", "12345678"),
            ("000001", "000001"),
            ("½", ""),
            ("²", ""),
            ("Ⅻ", ""),
            ("1½2²3Ⅻ4", "1234"),
            ("３", "3"),
            ("٣", "3"),
            ("٣٣-３３", "3333"),
            ("abc", ""),
        ])
    func normalizing(input: String, digits: String) {
        #expect(ChipNumber(normalizing: input).digits == digits)
    }

    @Test(
        "formatted as 00000-00000-00000 with a hyphen only before a digit",
        arguments: [
            ("", ""),
            ("1", "1"),
            ("12345", "12345"),
            ("123456", "12345-6"),
            ("1234567890", "12345-67890"),
            ("12345678901", "12345-67890-1"),
            ("123456789012345", "12345-67890-12345"),
        ])
    func formatting(digits: String, formatted: String) {
        #expect(ChipNumber(normalizing: digits).formatted == formatted)
    }

    @Test(
        "hints name the prefix of 15 digits, flag a national ID over 2^38-1 and note short numbers",
        arguments: [
            ("", []),
            ("1", [ChipNumber.Hint.shorterThanISO]),
            ("12345678901234", [.shorterThanISO]),
            ("616274877906943", [.countryCode("616")]),
            ("616274877906944", [.countryCode("616"), .nationalIDTooLarge]),
            ("001000000000001", [.countryCode("001")]),
            ("899000000000001", [.countryCode("899")]),
            ("900000000000001", [.manufacturerCode("900")]),
            ("985112345678901", [.manufacturerCode("985")]),
            ("998999999999999", [.manufacturerCode("998"), .nationalIDTooLarge]),
            ("999000000000001", [.testTransponder]),
            ("000000000000001", [.unassignedCode]),
        ] as [(String, [ChipNumber.Hint])])
    func hints(digits: String, hints: [ChipNumber.Hint]) {
        #expect(ChipNumber(normalizing: digits).hints == hints)
    }

    @Test("the flow stores digits only, shows them formatted and never refuses")
    func storedAndDisplayed() throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "12345-67890-12345 (tag)"}"#)
        #expect(flow.values.chipNumber == "123456789012345")
        let field = try #require(flow.field(.chipNumber))
        #expect(field["value"] == "123456789012345")
        #expect(field["display"] == "12345-67890-12345")
        #expect(field["error"] == .null)
        #expect(field["label"] == "Microchip number (optional)")
        #expect(field["placeholder"] == "00000-00000-00000")
        #expect(field["required"] == false)
        #expect(flow.view()["values"]?["chipNumber"] == "123456789012345")
    }

    @Test("text without digits, null and a blank string all mean no chip", arguments: [#""abc""#, "null", #""  ""#])
    func clearing(value: String) throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "123"}"#)
        try flow.update(#"{"chipNumber": \#(value)}"#)
        #expect(flow.values.chipNumber == nil)
        #expect(flow.field(.chipNumber)?["value"] == .null)
        #expect(flow.field(.chipNumber)?["display"] == .null)
    }

    @Test(
        "the helper text follows the digits entered",
        arguments: [
            ("", nil),
            ("1", ChipNumber.Hint.shorterThanISO),
            ("12345678901234", .shorterThanISO),
            ("616274877906943", .countryCode("616")),
            ("900000000000001", .manufacturerCode("900")),
        ] as [(String, ChipNumber.Hint?)])
    func helperText(digits: String, hint: ChipNumber.Hint?) throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "\#(digits)"}"#)
        let expected: JSONValue = hint.map { .string(StringCatalog.english.chipHint($0)) } ?? .null
        #expect(flow.field(.chipNumber)?["helper"] == expected)
    }

    @Test("a national ID over the ISO limit adds a warning to the prefix hint")
    func tooLargeWarning() throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "616274877906944"}"#)
        let helper = try #require(flow.field(.chipNumber)?["helper"]?.stringValue)
        #expect(helper.contains("ISO 3166"))
        #expect(helper.contains("274877906943"))
    }

    @Test("Continue on the chip step always succeeds, empty or not", arguments: ["", "1", "123456789012345"])
    func continueNeverBlocks(digits: String) throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "\#(digits)"}"#)
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.step == .photo)
    }
}
