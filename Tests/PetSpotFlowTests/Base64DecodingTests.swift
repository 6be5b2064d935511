import FoundationEssentials
import Testing

@testable import PetSpotFlow

@Suite("base64 decoding")
struct Base64DecodingTests {
    private static func decode(_ text: String, maxBytes: Int = 1 << 20) throws(Base64Decoding.Failure) -> [UInt8] {
        var text = text
        return try text.withUTF8 { buffer in Result { () throws(Base64Decoding.Failure) in try Base64Decoding.decode(buffer, maxBytes: maxBytes) } }.get()
    }

    @Test(
        "RFC 4648 test vectors, padded, unpadded and wrapped",
        arguments: [
            ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"), ("Zg", "f"), ("Zm8", "fo"), ("Zm9vYg", "foob"), ("Zg=", "f"),
            ("Zm9v\nYmFy\n", "foobar"), (" Zm 9v\r\nYm\tFy ", "foobar"), ("Zm9vYg=\n=", "foob"), ("\n\n", ""),
        ])
    func vectors(text: String, plain: String) throws {
        #expect(try Self.decode(text) == Array(plain.utf8))
    }

    @Test(
        "refused: other characters, data after padding, impossible lengths, too much padding",
        arguments: ["Zm9v!", "Zm9v-_", "Z", "Zm9vY", "=Zm9", "Zg=a", "Zm8=Zm8=", "Zg===", "Zm9=v", "Zm9vYmFy=", "====", "Zm9v\u{0}", "Zm9vÿ"])
    func refused(text: String) {
        #expect(throws: Base64Decoding.Failure.invalid) { try Self.decode(text) }
    }

    @Test("the size limit: at it is decoded, one byte over is refused, however the text ends")
    func sizeLimit() throws {
        for length in [0, 1, 2, 3, 4, 299, 300, 301] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let text = Data(bytes).base64EncodedString()
            #expect(try Self.decode(text, maxBytes: length) == bytes)
            #expect(try Self.decode(text.replacing("=", with: ""), maxBytes: length) == bytes)
            if length > 0 {
                #expect(throws: Base64Decoding.Failure.tooLarge) { try Self.decode(text, maxBytes: length - 1) }
            }
        }
    }

    @Test("the same bytes as Foundation's decoder for every length and line wrapping up to 200 bytes")
    func matchesFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Data(bytes).base64EncodedString()
            #expect(try Self.decode(text) == bytes, "length \(length)")
            // Wrapped as base64(1) and MIME do it, with \n and \r\n, at odd places too.
            for width in [1, 3, 76] {
                for separator in ["\n", "\r\n"] {
                    var wrapped = ""
                    for (index, character) in text.enumerated() {
                        if index > 0, index % width == 0 { wrapped += separator }
                        wrapped.append(character)
                    }
                    #expect(try Self.decode(wrapped) == bytes, "length \(length), width \(width)")
                }
            }
        }
    }
}

@Suite("base64 decoding in parts")
struct Base64StreamTests {
    /// Decodes `text` cut at `cuts` as a stream would get it.
    private static func decode(_ text: String, cuts: [Int]) throws(Base64Decoding.Failure) -> [UInt8] {
        let bytes = Array(text.utf8)
        var stream = Base64Decoding.Stream()
        var output: [UInt8] = []
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            let part = Array(bytes[start..<end])
            var room = [UInt8](repeating: 0, count: Base64Decoding.Stream.maxOutput(forCharacters: part.count))
            let count = try part.withUnsafeBufferPointer { text in
                room.withUnsafeMutableBufferPointer { out in Result { () throws(Base64Decoding.Failure) in try stream.decode(text, into: out) } }
            }.get()
            output += room[..<count]
            start = end
        }
        var last = [UInt8](repeating: 0, count: 2)
        let count = try last.withUnsafeMutableBufferPointer { out in Result { () throws(Base64Decoding.Failure) in try stream.finish(into: out) } }.get()
        return output + last[..<count]
    }

    @Test("a text cut anywhere, in two or three parts, decodes as the whole, or is refused as the whole", arguments: [
        "", "Zg==", "Zm8=", "Zm9vYmFy", "Zm9vYg", " Zm 9v\r\nYm\tFy ", "Zm9vYg=\n=", "Zm9vYmFyYmF6cXV4",
        "Zm9v!", "Zg=a", "Zm8=Zm8=", "Zg===", "Zm9vY", "Zm9vYmFy=",
    ])
    func cutAnywhere(text: String) {
        var whole = text
        let expected = whole.withUTF8 { buffer in Result { () throws(Base64Decoding.Failure) in try Base64Decoding.decode(buffer, maxBytes: 1 << 20) } }
        let count = text.utf8.count
        for first in 0...count {
            for second in first...count {
                let parts = Result { () throws(Base64Decoding.Failure) in try Self.decode(text, cuts: [first, second]) }
                #expect(parts == expected, "\(text) cut at \(first) and \(second)")
            }
        }
    }
}
