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
    /// output) is ignored. `maxBytes` limits the decoded size.
    public static func decode(base64: String, filename: String?, maxBytes: Int) throws(Problem) -> Photo {
        guard var text = compact(base64) else { throw .notBase64 }
        // Some encoders leave the padding out; complete it rather than refuse the photo.
        switch text.count % 4 {
        case 2: text.append(contentsOf: "==".utf8)
        case 3: text.append(contentsOf: "=".utf8)
        default: break
        }
        // Refuse an oversized upload before spending memory on decoding it.
        guard text.count / 4 * 3 <= maxBytes + 2 else { throw .tooLarge(limit: maxBytes) }
        guard let decoded = Data(base64Encoded: Data(text)) else { throw .notBase64 }
        let bytes = [UInt8](decoded)
        guard bytes.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
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

    /// The text's bytes without white space, in one pass over a photo-sized string; nil when
    /// data follows padding ("AA=A"), which Foundation would tolerate.
    private static func compact(_ base64: String) -> [UInt8]? {
        var base64 = base64
        return base64.withUTF8 { bytes in
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count + 2)
            var padded = false
            for byte in bytes {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                case UInt8(ascii: "="): padded = true
                default: if padded { return nil }
                }
                text.append(byte)
            }
            return text
        }
    }
}
