/// Base64url without padding (RFC 4648 §5): text that travels in JSON and URLs unescaped.
/// Decoding is strict, so one cursor has one text: no padding, no other characters, no
/// stray bits in the last character.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var bits = 0, count = 0
        for byte in bytes {
            bits = bits << 8 | Int(byte)
            count += 8
            while count >= 6 {
                count -= 6
                text.append(alphabet[(bits >> count) & 0x3F])
            }
        }
        if count > 0 { text.append(alphabet[(bits << (6 - count)) & 0x3F]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Nil for anything but the canonical text of some bytes.
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var bits = 0, count = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            bits = (bits << 6 | Int(value)) & 0xFFFF
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8((bits >> count) & 0xFF))
            }
        }
        // Bits left over must be zero, or two texts would decode to the same bytes.
        guard bits & ((1 << count) - 1) == 0 else { return nil }
        return bytes
    }
}
