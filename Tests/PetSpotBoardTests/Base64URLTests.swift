import Testing

@testable import PetSpotBoard

@Suite("Base64url")
struct Base64URLTests {
    @Test(
        "RFC 4648 vectors without padding, in the URL alphabet",
        arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
                    ("foobar", "Zm9vYmFy"), ("\u{FB}\u{FF}", "w7vDvw"), ("??>", "Pz8-"), ("???", "Pz8_")])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("every byte value round-trips")
    func allBytes() {
        let bytes = (0...255).map(UInt8.init)
        for count in 0...bytes.count {
            #expect(Base64URL.decode(Base64URL.encode(bytes.prefix(count))) == Array(bytes.prefix(count)))
        }
    }

    @Test("only canonical text decodes", arguments: ["Zg==", "Zm9v+", "Zm9v/", "Z", "Zm9vY", "Zh", "Zm9", "Zm9v Yg", "Zé"])
    func refused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
