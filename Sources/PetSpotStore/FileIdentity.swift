/// Which file a path or a descriptor leads to: two names for the same file have the same identity.
struct FileIdentity: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64
}
