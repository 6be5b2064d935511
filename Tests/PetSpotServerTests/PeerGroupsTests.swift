#if canImport(Glibc)
import Glibc
#endif
@testable import PetSpotServer
import Testing

@Suite("Supplementary groups of a socket peer")
struct PeerGroupsTests {
    /// Both ends of a socketpair are this process: the peer's groups are our own.
    static func ownGroups() -> [UInt32] {
        let count = getgroups(0, nil)
        var list = [gid_t](repeating: 0, count: Int(max(count, 1)))
        let found = getgroups(count, &list)
        return Array(list.prefix(Int(max(found, 0))))
    }

    /// The relay integration tests give a peer more groups than the first try has room for.
    @Test("SO_PEERGROUPS gives the peer's groups, whatever room the first try has",
          arguments: [0, 1, 16])
    func readsOwnGroups(initialCapacity: Int) throws {
        var fds: [CInt] = [-1, -1]
        try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let groups = try PeerGroups.groups(of: fds[0], initialCapacity: initialCapacity)
        #expect(Set(groups) == Set(Self.ownGroups()))
    }

    @Test("a descriptor that is no socket fails, naming the option")
    func notASocket() {
        #expect { try PeerGroups.groups(of: -1) } throws: { "\($0)".contains("SO_PEERGROUPS") }
    }
}
