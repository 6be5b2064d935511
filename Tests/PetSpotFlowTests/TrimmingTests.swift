import Foundation
import Testing

@testable import PetSpotFlow

@Suite("Trimming blanks")
struct TrimmingTests {
    // Foundation (with ICU) is the reference the daemon's rules were written against.
    @Test("the same scalars as Foundation's character sets, over all of Unicode", arguments: [
        (BlankScalars.whitespaces, CharacterSet.whitespaces),
        (BlankScalars.whitespacesAndNewlines, CharacterSet.whitespacesAndNewlines),
    ])
    func sameSets(blanks: BlankScalars, reference: CharacterSet) {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if blanks.contains(scalar) != reference.contains(scalar) { differing.append("U+" + String(value, radix: 16)) }
        }
        #expect(differing == [])
    }

    @Test("ends only, scalar by scalar", arguments: [
        ("  Rex \n", "Rex", "Rex \n"),
        ("\t\u{00A0}a b\u{3000}", "a b", "a b"),
        ("\u{2028}x\u{2029}", "x", "\u{2028}x\u{2029}"),
        ("\u{200B}x\u{200B}", "x", "x"),
        // A combining mark after a space is kept though the space goes, as Foundation does.
        (" \u{301}x", "\u{301}x", "\u{301}x"),
        (" \r\n ", "", "\r\n"),
        ("", "", ""),
    ])
    func ends(text: String, withNewlines: String, withoutNewlines: String) {
        #expect(text.trimming(.whitespacesAndNewlines) == withNewlines)
        #expect(text.trimming(.whitespaces) == withoutNewlines)
        #expect(text.trimming(.whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text.trimming(.whitespaces) == text.trimmingCharacters(in: .whitespaces))
    }
}
