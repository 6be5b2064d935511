/// Where the next page of a listing starts: the insertion sequence number of the last report shown.
/// Clients see it as opaque text such as "r42".
struct ReportCursor: Hashable {
    /// Reports strictly older (lower seq) than this come next.
    let seq: Int64

    init(seq: Int64) {
        self.seq = seq
    }

    /// Accepts only the exact text `text` produces, so every cursor has one spelling.
    init?(text: String) {
        let utf8 = text.utf8
        guard utf8.first == UInt8(ascii: "r") else { return nil }
        let digits = utf8.dropFirst()
        guard !digits.isEmpty, digits.count <= 19,
              digits.first != UInt8(ascii: "0"),
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let seq = Int64(String(decoding: digits, as: UTF8.self))
        else { return nil }
        self.seq = seq
    }

    var text: String { "r\(seq)" }
}
