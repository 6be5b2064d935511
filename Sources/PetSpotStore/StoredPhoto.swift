/// A report's photo with its bytes, stored in the same row as the report so a report is never half-written.
public struct StoredPhoto: Sendable, Hashable {
    public let mediaType: String
    /// Lowercase hex SHA-256 of `data`, computed by the caller.
    public let sha256: String
    public let data: [UInt8]

    public init(mediaType: String, sha256: String, data: [UInt8]) {
        self.mediaType = mediaType
        self.sha256 = sha256
        self.data = data
    }
}
