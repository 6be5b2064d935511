import PetSpotJSON

/// An accepted animal photo. Its bytes stay with the flow (in memory or in the daemon's spool)
/// until the report is stored; screens and reports show only its metadata.
public struct Photo: Sendable, Hashable {
    /// Decided by the file's magic bytes: "image/jpeg", "image/png", "image/webp", "image/heic", ...
    public let mediaType: String
    public let content: any PhotoContent
    /// SHA-256 of the content, 64 lowercase hex digits.
    public let sha256: String
    /// The client's name for the file; a hint for people, never used to decide the type.
    public let filename: String?

    init(mediaType: String, content: any PhotoContent, sha256: String, filename: String?) {
        self.mediaType = mediaType
        self.content = content
        self.sha256 = sha256
        self.filename = filename
    }

    /// How many bytes the photo has.
    public var byteCount: Int { content.count }

    /// `{mediaType, bytes, sha256}`: what a view or a report shows instead of the data.
    public var metadata: JSONValue {
        ["mediaType": .string(mediaType), "bytes": .int(byteCount), "sha256": .string(sha256)]
    }

    /// Two photos are the same by what they say of their bytes, wherever those are kept.
    public static func == (a: Photo, b: Photo) -> Bool {
        a.sha256 == b.sha256 && a.byteCount == b.byteCount && a.mediaType == b.mediaType && a.filename == b.filename
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sha256)
        hasher.combine(filename)
    }
}
