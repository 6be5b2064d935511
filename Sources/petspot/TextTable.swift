/// Columns padded to their widest cell, the last one left ragged; a header row on top.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []

    init(headers: [String]) {
        self.headers = headers
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    var lines: [String] {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : TextLayout.pad(cell, to: widths[column])
            }.joined(separator: "  ")
        }
    }
}
