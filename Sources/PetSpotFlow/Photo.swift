import PetSpotJSON

/// An accepted animal photo. Its bytes stay in the flow until the report is stored; screens and
/// reports show only its metadata.
public struct Photo: Sendable, Hashable {
    /// Decided by the file's magic bytes: "image/jpeg", "image/png", "image/webp", "image/heic", ...
    public let mediaType: String
    public let data: [UInt8]
    /// SHA-256 of `data`, 64 lowercase hex digits.
    public let sha256: String
    /// The client's name for the file; a hint for people, never used to decide the type.
    public let filename: String?

    public init(mediaType: String, data: [UInt8], filename: String?) {
        self.mediaType = mediaType
        self.data = data
        self.sha256 = SHA256.hexHash(data)
        self.filename = filename
    }

    /// `{mediaType, bytes, sha256}`: what a view or a report shows instead of the data.
    public var metadata: JSONValue {
        ["mediaType": .string(mediaType), "bytes": .int(data.count), "sha256": .string(sha256)]
    }
}
