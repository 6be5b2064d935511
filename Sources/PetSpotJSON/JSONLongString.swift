/// The bytes a parse ran over, for values that refer to them instead of copying them: the line
/// a request came in, which the daemon holds anyway until the request is answered.
public protocol JSONSourceBytes: Sendable {
    /// Calls `body` with the bytes at `range` of what was parsed.
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
}

/// A long string of plain ASCII (no escape, no control character) left in the bytes it was
/// parsed from: a photo's base64 is read where it arrived, not copied into a `String` first.
/// `JSONParser` makes these only when asked (`keepingStringsInPlaceFrom`); the text is the same
/// as `.string(string)`, and compares and hashes as that.
public struct JSONLongString: Sendable, Hashable {
    private let source: any JSONSourceBytes
    private let range: Range<Int>

    init(source: any JSONSourceBytes, range: Range<Int>) {
        self.source = source
        self.range = range
    }

    /// Bytes of the text, which are also its characters.
    public var utf8Count: Int { range.count }

    /// The text's bytes where they are.
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        source.withBytes(in: range, body)
    }

    /// The text as a `String`: a copy, for the code that reads any string.
    public var string: String { withUTF8 { String(decoding: $0, as: UTF8.self) } }

    public static func == (a: JSONLongString, b: JSONLongString) -> Bool {
        a.utf8Count == b.utf8Count && a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(string)
    }
}
