import FoundationEssentials

/// Checks and decodes a photo's base64 (`Base64Photo`), deciding the image type from the bytes
/// themselves.
public enum PhotoDecoder {
    public enum Problem: Error, Sendable, Hashable {
        case notBase64
        case tooLarge(limit: Int)
        case notAnImage
    }

    /// Longest filename hint kept, in characters.
    public static let maxFilenameLength = 255

    /// Checks a base64 text without keeping what it decodes to: that it is base64, decodes to
    /// at most `maxBytes`, and to an image. Answers the decoded size and the media type.
    static func check(_ text: UnsafeBufferPointer<UInt8>, maxBytes: Int) throws(Problem) -> (byteCount: Int, mediaType: String) {
        var head: [UInt8] = []
        var total = 0
        let failure = decodeInChunks(text) { chunk in
            if head.count < 16 { head += chunk.prefix(16 - head.count) }
            total += chunk.count
            return total <= maxBytes
        }
        switch failure {
        case .invalid?: throw .notBase64
        case .tooLarge?: throw .tooLarge(limit: maxBytes)
        case nil: break
        }
        guard total <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        guard let mediaType = mediaType(of: head) else { throw .notAnImage }
        return (total, mediaType)
    }

    /// Characters of base64 decoded at a time: 192 KiB of bytes, written to a file as a part.
    static let chunkCharacters = 256 * 1024

    /// Decodes `text` a chunk at a time, handing each chunk's bytes to `body`, which stops the
    /// decoding by answering false. Answers why the text is not base64, or nil.
    static func decodeInChunks(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Base64Decoding.Failure? {
        let room = Base64Decoding.Stream.maxOutput(forCharacters: min(text.count, chunkCharacters))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { output -> Base64Decoding.Failure? in
            var stream = Base64Decoding.Stream()
            var start = 0
            do throws(Base64Decoding.Failure) {
                while start < text.count {
                    let end = min(start + chunkCharacters, text.count)
                    let count = try stream.decode(UnsafeBufferPointer(rebasing: text[start..<end]), into: output)
                    start = end
                    if count > 0, !body(UnsafeBufferPointer(rebasing: output[..<count])) { return nil }
                }
                let count = try stream.finish(into: output)
                if count > 0 { _ = body(UnsafeBufferPointer(rebasing: output[..<count])) }
                return nil
            } catch {
                return error
            }
        }
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
