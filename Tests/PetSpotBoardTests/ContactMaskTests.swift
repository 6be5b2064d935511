import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Contact masks")
struct ContactMaskTests {
    @Test(
        "a phone shows its last 3 digits, a bullet for every other digit and a leading +",
        arguments: [
            ("+48123456789", "+••••••••789"),
            ("0123456789", "•••••••789"),
            ("1234567", "••••567"),
            ("+123456789012345", "+••••••••••••345"),
            ("1234", "•234"),
            // 3 digits or fewer: never shown whole.
            ("123", "•••"),
            ("+12", "+••"),
            ("7", "•"),
            // Not what the flow stores, but read without showing more: separators dropped,
            // digits of other scripts as ASCII, letters dropped.
            ("+48 (12) 345-67-89", "+••••••••789"),
            ("١٢٣٤٥٦٧", "••••567"),
            ("１２３４５６７", "••••567"),
            ("12a34b567", "••••567"),
        ])
    func phone(stored: String, masked: String) {
        #expect(ContactMask.phone(stored) == masked)
    }

    @Test("a phone with no digit is no number", arguments: ["", "+", "abc", " - "])
    func phoneWithoutDigits(stored: String) {
        #expect(ContactMask.phone(stored) == nil)
    }

    @Test(
        "every phone the flow accepts keeps exactly its last 3 digits readable",
        arguments: ["+48 123 456 789", "(0) 12-345-67", "+1.555.010.9999", "123456789012345"])
    func acceptedPhones(input: String) throws {
        let stored = try PhoneNumber(parsing: input).normalized
        let masked = try #require(ContactMask.phone(stored))
        #expect(masked.filter(\.isNumber) == String(stored.suffix(3)))
        #expect(masked.count == stored.count)
    }

    @Test(
        "an email shows the first character of its local part, •••, @ and the domain",
        arguments: [
            ("jan.kowalski@example.pl", "j•••@example.pl"),
            ("ab@example.com", "a•••@example.com"),
            // One character: the whole local part would show; hidden instead.
            ("a@example.com", "•••@example.com"),
            // The first Character is a grapheme: an emoji with its modifier, a letter with a
            // combining accent, a flag.
            ("👍🏽fan@example.com", "👍🏽•••@example.com"),
            ("e\u{301}mile@example.fr", "e\u{301}•••@example.fr"),
            ("🇵🇱polska@example.pl", "🇵🇱•••@example.pl"),
            ("łucja@example.pl", "ł•••@example.pl"),
            ("用户@例子.广告", "用•••@例子.广告"),
            ("jan@xn--bcher-kva.example", "j•••@xn--bcher-kva.example"),
            ("anna@bücher.de", "a•••@bücher.de"),
            // A quoted local part: its first character is the quote.
            ("\"jan.k\"@example.com", "\"•••@example.com"),
            // Not what the flow stores, read defensively: the domain follows the last "@".
            ("\"a@b\"@example.com", "\"•••@example.com"),
            ("@example.com", "•••@example.com"),
            ("jan@", "j•••@"),
            ("no-at-sign", "•••"),
            ("", "•••"),
        ])
    func email(stored: String, masked: String) {
        #expect(ContactMask.email(stored) == masked)
    }

    @Test(
        "the flow accepts these addresses and their masks show no more than the first character",
        arguments: [
            ("\"jan.k\"@example.com", "\"•••@example.com"),
            ("a@b.pl", "•••@b.pl"),
            ("łucja@bücher.de", "ł•••@bücher.de"),
        ])
    func acceptedEmails(input: String, masked: String) throws {
        let stored = try EmailAddress(parsing: input).normalized
        #expect(ContactMask.email(stored) == masked)
    }
}
