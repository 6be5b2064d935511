/// Standard base64 (RFC 4648 §4) to bytes in one pass, straight from the text's UTF-8.
///
/// Written here rather than taken from a library: FoundationEssentials' `Data(base64Encoded:)`
/// needs the text as `Data` with its white space removed first (two more whole copies of a
/// photo) and decodes 12 MiB in 3.5 ms where this takes 2.6; OpenSSL's `EVP_DecodeBlock` is no
/// faster (3.6 ms), refuses white space inside the text and pads its output. Figures:
/// docs/PERFORMANCE.md, "Taking in a photo" (`Benchmarks/run-base64.sh`).
///
/// Accepted as clients send it: white space anywhere (wrapped `base64` output), padding present,
/// short or missing. Refused: any other character, data after padding, and a length that no
/// encoder makes (one character over a whole group).
public enum Base64Decoding {
    public enum Failure: Error, Sendable, Hashable {
        case invalid
        /// More than the `maxBytes` the caller allows.
        case tooLarge
    }

    /// The decoded bytes, refused with `.tooLarge` before more than `maxBytes` are written.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, maxBytes: Int) throws(Failure) -> [UInt8] {
        // Four characters make three bytes; white space only makes the output shorter.
        let capacity = min(text.count / 4 * 3 + 3, maxBytes + 3)
        var failure: Failure? = nil
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
            do throws(Failure) {
                var stream = Stream()
                count = try stream.decode(text, into: output)
                count += try stream.finish(into: UnsafeMutableBufferPointer(rebasing: output[count...]))
                guard count <= maxBytes else { throw .tooLarge }
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// A decoding in parts: a text given piece by piece (split anywhere) decodes as the whole
    /// would, so a photo can be decoded a chunk at a time into a file.
    public struct Stream: Sendable {
        private var group: UInt32 = 0
        private var inGroup = 0
        /// "=" seen so far: after the first, only more of them and white space may follow.
        private var padding = 0

        public init() {}

        /// The most bytes `decode` writes for `count` characters.
        public static func maxOutput(forCharacters count: Int) -> Int { count / 4 * 3 + 3 }

        /// Decodes the next piece of the text into `output`; returns the number of bytes written.
        /// Throws `.tooLarge` when `output` has no room left (room for `maxOutput` never runs out).
        public mutating func decode(_ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Int {
            guard let input = text.baseAddress, !text.isEmpty else { return 0 }
            // No room at all: refused rather than skipping the text, which would lose its place.
            guard let out = output.baseAddress, !output.isEmpty else { throw .tooLarge }
            let n = text.count
            let room = output.count
            var i = 0, written = 0
            if padding == 0 {
                try Tables.shifted.withUnsafeBufferPointer { (shifted) throws(Failure) in
                    let t0 = shifted.baseAddress!, t1 = t0 + 256, t2 = t0 + 512, t3 = t0 + 768
                    while i < n {
                        // Whole groups of four characters with nothing else among them: most of a photo.
                        if inGroup == 0 {
                            while i + 4 <= n, written + 3 <= room {
                                let word = t0[Int(input[i])] | t1[Int(input[i + 1])] | t2[Int(input[i + 2])] | t3[Int(input[i + 3])]
                                if word & Tables.notSextet != 0 { break }
                                out[written] = UInt8(truncatingIfNeeded: word >> 16)
                                out[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                                out[written + 2] = UInt8(truncatingIfNeeded: word)
                                written += 3
                                i += 4
                            }
                            if i >= n { break }
                        }
                        // One character at a time: white space, padding, the end, or a stray byte.
                        let character = input[i]
                        i += 1
                        let sextet = t3[Int(character)]
                        if sextet & Tables.notSextet == 0 {
                            group = group << 6 | sextet
                            inGroup += 1
                            if inGroup == 4 {
                                guard written + 3 <= room else { throw .tooLarge }
                                out[written] = UInt8(truncatingIfNeeded: group >> 16)
                                out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                                out[written + 2] = UInt8(truncatingIfNeeded: group)
                                written += 3
                                group = 0
                                inGroup = 0
                            }
                        } else if isWhiteSpace(character) {
                            continue
                        } else if character == UInt8(ascii: "=") {
                            padding = 1
                            break
                        } else {
                            throw .invalid
                        }
                    }
                }
            }
            // After the first "=": only more "=" (a group holds at most four characters) and white space.
            while i < n {
                let character = input[i]
                i += 1
                if character == UInt8(ascii: "=") {
                    padding += 1
                } else if !isWhiteSpace(character) {
                    throw .invalid
                }
            }
            return written
        }

        /// The end of the text: writes the last group's bytes into `output` (room for 2 is
        /// enough); returns how many.
        public func finish(into output: UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Int {
            if padding > 0 {
                guard inGroup >= 2, inGroup + padding <= 4 else { throw .invalid }
            }
            switch inGroup {
            case 0:
                return 0
            case 1:
                throw .invalid
            case 2:
                guard output.count >= 1 else { throw .tooLarge }
                output[0] = UInt8(truncatingIfNeeded: group >> 4)
                return 1
            default:
                guard output.count >= 2 else { throw .tooLarge }
                output[0] = UInt8(truncatingIfNeeded: group >> 10)
                output[1] = UInt8(truncatingIfNeeded: group >> 2)
                return 2
            }
        }
    }

    fileprivate static func isWhiteSpace(_ character: UInt8) -> Bool {
        character == 0x20 || character == 0x0A || character == 0x0D || character == 0x09
    }

    private enum Tables {
        /// Set in a table entry of a byte that is not one of the 64 characters.
        static let notSextet: UInt32 = 0x8000_0000

        /// Four tables of 256 entries, one per place in a group: the character's six bits already
        /// shifted to that place, so a group is four lookups joined by OR.
        static let shifted: [UInt32] = {
            var value = [UInt32](repeating: notSextet, count: 256)
            for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
                value[Int(character)] = UInt32(index)
            }
            var tables: [UInt32] = []
            tables.reserveCapacity(1024)
            for shift: UInt32 in [18, 12, 6, 0] {
                tables += value.map { $0 == notSextet ? notSextet : $0 << shift }
            }
            return tables
        }()
    }
}
