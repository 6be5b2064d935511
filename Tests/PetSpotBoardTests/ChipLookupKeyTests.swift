import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Chip lookup key")
struct ChipLookupKeyTests {
    @Test(
        "any formatting reads as step 1 reads it",
        arguments: [
            ("616093900012345", "616093900012345"),
            ("61609-39000-12345", "616093900012345"),
            ("616 093 900 012 345", "616093900012345"),
            ("６１６０９３９０００１２３４５", "616093900012345"),
            ("٦١٦-٠٩٣", "616093"),
            ("chip: 000123", "000123"),
            ("1234567890123456789", "123456789012345"),
            ("7", "7"),
        ])
    func key(input: String, digits: String) throws {
        #expect(try ChipLookupKey(reading: input).digits == digits)
        #expect(try ChipLookupKey(reading: input).digits == ChipNumber(normalizing: input).digits)
    }

    @Test("text with no digit at all is an error", arguments: ["", "   ", "---", "abc", "½ Ⅻ ²"])
    func noDigits(input: String) {
        #expect(throws: ChipLookupKey.Problem.noDigits) { try ChipLookupKey(reading: input) }
        #expect(ChipLookupKey.Problem.noDigits.description.contains("no digits"))
    }
}
