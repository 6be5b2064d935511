/// What a photo is, without its bytes: `{mediaType, bytes, sha256}` as an answer shows it.
public struct PhotoDescription: Sendable, Hashable {
    public let mediaType: String
    /// Its size in bytes.
    public let bytes: Int
    /// Lowercase hex SHA-256 of the bytes.
    public let sha256: String

    public init(mediaType: String, bytes: Int, sha256: String) {
        self.mediaType = mediaType
        self.bytes = bytes
        self.sha256 = sha256
    }
}

extension StoredPhoto {
    /// The photo described.
    public var described: PhotoDescription {
        PhotoDescription(mediaType: mediaType, bytes: data.count, sha256: sha256)
    }
}
