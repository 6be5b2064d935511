/// Indented JSON for people (`petspot` output), escaped for a terminal (`JSONWriter`'s
/// `forTerminal`); the wire always uses `JSONWriter`'s compact form.
public enum JSONPrettyPrinter {
    public static func string(_ value: JSONValue, indent: String = "  ") -> String {
        var out: [UInt8] = []
        write(value, level: 0, indent: Array(indent.utf8), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, level: Int, indent: [UInt8], into out: inout [UInt8]) {
        func newline(_ level: Int) {
            out.append(UInt8(ascii: "\n"))
            for _ in 0..<level { out.append(contentsOf: indent) }
        }
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                write(e, level: level + 1, indent: indent, into: &out)
            }
            newline(level)
            out.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONWriter.writeString(member.key, into: &out, forTerminal: true)
                out.append(contentsOf: Array(": ".utf8))
                write(member.value, level: level + 1, indent: indent, into: &out)
            }
            newline(level)
            out.append(UInt8(ascii: "}"))
        default:
            JSONWriter.write(value, into: &out, forTerminal: true)
        }
    }
}
