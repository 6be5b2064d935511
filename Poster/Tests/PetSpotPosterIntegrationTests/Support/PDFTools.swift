import Foundation

/// poppler-utils and zbar-tools, reading back what petspot-poster made.
enum PDFTools {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static func tool(_ name: String, _ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/" + name, arguments)
        guard result.status == 0 else { throw Failure(description: "\(name) \(arguments.joined(separator: " ")): \(result)") }
        return result.text
    }

    /// pdfinfo's fields: "Pages" → "1", "Page size" → "595.276 x 841.89 pts (A4)".
    static func info(_ pdf: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for line in try tool("pdfinfo", [pdf]).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The page's width and height in points.
    static func pageSize(_ pdf: String) throws -> (width: Double, height: Double) {
        let words = (try info(pdf)["Page size"] ?? "").split(separator: " ")
        guard words.count >= 3, let width = Double(words[0]), let height = Double(words[2]) else { throw Failure(description: "no page size") }
        return (width, height)
    }

    static func text(_ pdf: String) throws -> String {
        try tool("pdftotext", ["-enc", "UTF-8", pdf, "-"])
    }

    /// Every word with its box, in points from the page's top left.
    static func words(_ pdf: String) throws -> [(text: String, xMin: Double, yMin: Double, xMax: Double, yMax: Double)] {
        let html = try tool("pdftotext", ["-bbox", "-enc", "UTF-8", pdf, "-"])
        let pattern = try NSRegularExpression(pattern: #"<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>"#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            func group(_ index: Int) -> String { String(html[Range(match.range(at: index), in: html)!]) }
            return (group(5), Double(group(1))!, Double(group(2))!, Double(group(3))!, Double(group(4))!)
        }
    }

    /// pdffonts' rows: font name (without the subset prefix) and whether it is embedded.
    static func fonts(_ pdf: String) throws -> [(name: String, embedded: Bool)] {
        try tool("pdffonts", [pdf]).split(separator: "\n").dropFirst(2).map { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            let name = columns[0].split(separator: "+").last.map(String.init) ?? ""
            // name, type (one or two words), encoding, emb, sub, uni, object, ID.
            return (name, columns[columns.count - 5] == "yes")
        }
    }

    /// pdfimages -list: each image's width, height and encoding.
    static func images(_ pdf: String) throws -> [(width: Int, height: Int, encoding: String)] {
        try tool("pdfimages", ["-list", pdf]).split(separator: "\n").dropFirst(2).map { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return (Int(columns[3])!, Int(columns[4])!, String(columns[8]))
        }
    }

    /// The page as a PNG at `dpi`, written beside the PDF.
    static func rasterize(_ pdf: String, dpi: Int = 150) throws -> String {
        let prefix = pdf + "-page"
        _ = try tool("pdftoppm", ["-r", "\(dpi)", "-png", "-singlefile", pdf, prefix])
        return prefix + ".png"
    }

    /// What zbarimg reads in a picture: one line per code found, nothing when there is none.
    static func barcodes(_ png: String) throws -> [String] {
        let result = try run("/usr/bin/zbarimg", ["--quiet", "--raw", png])
        // 4: no code found.
        guard result.status == 0 || result.status == 4 else { throw Failure(description: "zbarimg: \(result)") }
        return result.text.split(separator: "\n").map(String.init)
    }
}
