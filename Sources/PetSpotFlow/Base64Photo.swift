import PetSpotJSON

/// A photo as `flow.update` brings it: its base64 text checked (it decodes, fits, and is an
/// image) but not yet decoded. Its bytes are made once, where they are kept: decoded a chunk at
/// a time into the daemon's spool, and hashed on the way (`decode(_:)`), so that neither the
/// text nor the photo is ever copied whole.
public struct Base64Photo: Sendable {
    public let mediaType: String
    public let byteCount: Int
    public let filename: String?
    /// The base64 text: `.string`, or `.longString` still in the request's line.
    private let text: JSONValue

    /// Checks `base64` (a JSON string): standard base64 with or without padding, white space (as
    /// in wrapped `base64` output) ignored. `maxBytes` limits the decoded size: checking stops at
    /// the part that passes it.
    init(base64: JSONValue, filename: String?, maxBytes: Int) throws(PhotoDecoder.Problem) {
        let checked = Self.withText(base64) { text in
            Result { () throws(PhotoDecoder.Problem) in try PhotoDecoder.check(text, maxBytes: maxBytes) }
        }
        (byteCount, mediaType) = try checked.get()
        self.filename = PhotoDecoder.filenameHint(filename)
        self.text = base64
    }

    /// Decodes the photo, handing its bytes to `write` a part at a time; answers their SHA-256
    /// (64 lowercase hex digits), for `photo(keptIn:sha256:)`.
    public func decode<E: Error>(_ write: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) -> String {
        var hasher = SHA256()
        var failure: E?
        let problem = Self.withText(text) { text in
            PhotoDecoder.decodeInChunks(text) { part in
                hasher.update(UnsafeRawBufferPointer(part))
                do throws(E) {
                    try write(UnsafeRawBufferPointer(part))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
        // The same text decoded without a problem when it was checked.
        precondition(problem == nil, "a photo's base64 text no longer decodes")
        return SHA256.hex(hasher.finalize())
    }

    /// The photo whose bytes `decode(_:)` wrote where `content` reads them.
    public func photo(keptIn content: any PhotoContent, sha256: String) -> Photo {
        precondition(content.count == byteCount, "a photo's bytes were kept with a different length")
        return Photo(mediaType: mediaType, content: content, sha256: sha256, filename: filename)
    }

    /// The photo with its bytes in memory, where no spool keeps them.
    public func decodedInMemory() -> Photo {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        let sha256 = decode { (part) throws(Never) in bytes.append(contentsOf: part) }
        return photo(keptIn: bytes, sha256: sha256)
    }

    private static func withText<R>(_ text: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch text {
        case .longString(let long):
            return long.withUTF8(body)
        case .string(var string):
            return string.withUTF8(body)
        default:
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }
}
