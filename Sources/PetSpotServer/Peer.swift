/// Who is on the other end of a connection, from the kernel (SO_PEERCRED, SO_PEERGROUPS), not
/// from the client.
public struct Peer: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    /// The supplementary groups the peer had when it connected.
    public let groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether `gid` is the peer's primary group or one of its supplementary groups.
    public func isMember(of gid: UInt32) -> Bool {
        self.gid == gid || groups.contains(gid)
    }

    /// The same credentials with the supplementary groups read separately.
    func with(groups: [UInt32]) -> Peer {
        Peer(pid: pid, uid: uid, gid: gid, groups: groups)
    }
}
