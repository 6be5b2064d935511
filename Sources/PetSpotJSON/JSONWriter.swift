import PetSpotText

/// Serialises JSON values compactly on one line: strings are escaped so that an answer never
/// contains a raw newline, and non-ASCII text is written as UTF-8.
///
/// `forTerminal` also escapes what JSON lets through raw but a terminal acts on, every character
/// `VisibleText` shows escaped: C1 controls (U+0080–U+009F; U+009B is a one-character CSI), the
/// line and paragraph separators and the bidirectional controls. The document means the same;
/// only a person's screen is spared.
public enum JSONWriter {
    public static func write(_ value: JSONValue, into out: inout [UInt8], forTerminal: Bool = false) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.literal.utf8)
        case .string(let s): writeString(s, into: &out, forTerminal: forTerminal)
        case .longString(let s): writeString(s.string, into: &out, forTerminal: forTerminal)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(e, into: &out, forTerminal: forTerminal)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out, forTerminal: forTerminal)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out, forTerminal: forTerminal)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// One line for a person's terminal: see `forTerminal`.
    public static func terminalString(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out, forTerminal: true)
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    public static func writeString(_ s: String, into out: inout [UInt8], forTerminal: Bool = false) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: they go in whole, in one copy.
        let whole: Bool? = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { needsEscape($0) || (forTerminal && terminalLeadBytes[Int($0)]) }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if whole != true {
            if forTerminal { writeTerminalEscaped(s, into: &out) } else { writeEscaped(s, into: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The bytes that lead the UTF-8 of a character above ASCII that `VisibleText` shows escaped
    /// (0xC2 for C1, 0xD8 for U+061C, 0xE2 for the marks, separators and bidirectional controls):
    /// a string without them and without a byte `needsEscape` goes to a terminal in one copy.
    private static let terminalLeadBytes: [Bool] = {
        var lead = [Bool](repeating: false, count: 256)
        for range in VisibleText.shownEscaped {
            for value in range where value >= 0x80 {
                if let scalar = Unicode.Scalar(value), let first = UTF8.encode(scalar)?.first { lead[Int(first)] = true }
            }
        }
        return lead
    }()

    @inline(__always)
    private static func needsEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b == 0x7F
    }

    private static func writeEscaped(_ s: String, into out: inout [UInt8]) {
        for b in s.utf8 { writeEscaped(byte: b, into: &out) }
    }

    @inline(__always)
    private static func writeEscaped(byte b: UInt8, into out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x00..<0x20, 0x7F:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
        default: out.append(b)
        }
    }

    private static func writeTerminalEscaped(_ s: String, into out: inout [UInt8]) {
        for scalar in s.unicodeScalars {
            if scalar.value < 0x80 {
                writeEscaped(byte: UInt8(scalar.value), into: &out)
            } else if VisibleText.isShownEscaped(scalar) {
                // All of them are in the Basic Multilingual Plane: one \uXXXX each.
                let v = Int(scalar.value)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), hex[v >> 12], hex[(v >> 8) & 0xF], hex[(v >> 4) & 0xF], hex[v & 0xF]])
            } else {
                out.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
    }
}
