/// CSV as RFC 4180 writes it: records end in CRLF, and a field holding a comma, a double
/// quote, CR or LF is quoted, with its quotes doubled.
enum CSVWriter {
    static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    static func field(_ text: String) -> String {
        let needsQuotes = text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
        guard needsQuotes else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}
