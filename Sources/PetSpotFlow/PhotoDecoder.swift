import FoundationEssentials

/// Turns a base64 upload into a `Photo`, deciding the image type from the bytes themselves.
public enum PhotoDecoder {
    public enum Problem: Error, Sendable, Hashable {
        case notBase64
        case tooLarge(limit: Int)
        case notAnImage
    }

    /// Longest filename hint kept, in characters.
    public static let maxFilenameLength = 255

    /// Accepts standard base64 with or without padding; white space (as in wrapped `base64`
    /// output) is ignored. `maxBytes` limits the decoded size: decoding stops as soon as it is
    /// passed. The text is decoded where it is, with no copy of it.
    public static func decode(base64: String, filename: String?, maxBytes: Int) throws(Problem) -> Photo {
        var base64 = base64
        let decoded = base64.withUTF8 { text in Result { () throws(Base64Decoding.Failure) in try Base64Decoding.decode(text, maxBytes: maxBytes) } }
        let bytes: [UInt8]
        switch decoded {
        case .success(let value): bytes = value
        case .failure(.invalid): throw .notBase64
        case .failure(.tooLarge): throw .tooLarge(limit: maxBytes)
        }
        guard let mediaType = mediaType(of: bytes) else { throw .notAnImage }
        return Photo(mediaType: mediaType, data: bytes, filename: filenameHint(filename))
    }

    /// The media type by magic bytes (JPEG, PNG, WebP, HEIC/HEIF), or nil for anything else.
    public static func mediaType(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
            return "image/webp"
        }
        // ISO base media file: a box size, "ftyp", then the major brand.
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) {
            return heifMediaType(brand: String(decoding: bytes[8..<12], as: UTF8.self))
        }
        return nil
    }

    /// IANA types of the HEIF family by major brand: HEVC-coded images are HEIC.
    private static func heifMediaType(brand: String) -> String? {
        switch brand {
        case "heic", "heix", "heim", "heis": "image/heic"
        case "hevc", "hevx": "image/heic-sequence"
        case "mif1": "image/heif"
        case "msf1": "image/heif-sequence"
        default: nil
        }
    }

    /// Keeps the last path component of a hint, trimmed and bounded; blank becomes nil.
    static func filenameHint(_ hint: String?) -> String? {
        guard let hint else { return nil }
        let name = hint.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let trimmed = name.trimming(.whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : String(trimmed.prefix(maxFilenameLength))
    }
}
