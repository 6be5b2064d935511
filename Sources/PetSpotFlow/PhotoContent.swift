/// Where an accepted photo's bytes are while its flow is open: in memory (`[UInt8]`), or
/// wherever the daemon keeps them (a spool file), as long as they can be read back whole when
/// the report is stored.
public protocol PhotoContent: Sendable {
    /// How many bytes the photo has.
    var count: Int { get }
    /// The whole photo, for the moment its report is stored.
    func bytes() throws -> [UInt8]
}

extension Array: PhotoContent where Element == UInt8 {
    public func bytes() -> [UInt8] { self }
}
