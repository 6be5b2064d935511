import Testing

@testable import PetSpotFlow

@Suite("SHA-256")
struct SHA256Tests {
    @Test(
        "NIST FIPS 180-4 example vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256.hexHash(Array(message.utf8)) == digest)
    }

    @Test("NIST long message: one million 'a'")
    func millionA() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        let hex = hasher.finalize().map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Around the padding boundaries (55/56 bytes leave or need a second block), against sha256sum.
    @Test(
        "lengths around the block and padding boundaries",
        arguments: [
            (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
            (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
            (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
            (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
            (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
            (127, "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976"),
            (128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"),
        ])
    func boundaries(length: Int, digest: String) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hexHash(message) == digest)
    }

    @Test("feeding the message in pieces gives the same digest", arguments: [1, 3, 63, 64, 65, 100])
    func incremental(pieceLength: Int) {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var hasher = SHA256()
        var start = 0
        while start < message.count {
            let end = min(start + pieceLength, message.count)
            hasher.update(message[start..<end])
            start = end
        }
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test("finalize does not consume the hasher")
    func finalizeIsRepeatable() {
        var hasher = SHA256()
        hasher.update(Array("abc".utf8))
        #expect(hasher.finalize() == hasher.finalize())
    }
}
