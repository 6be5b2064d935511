#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// `struct ucred` from <sys/socket.h>, which Swift does not import without _GNU_SOURCE.
/// The layout (pid_t, uid_t, gid_t) is fixed by the Linux ABI.
struct UCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

enum PeerCredentials {
    /// SO_PEERCRED: the credentials the peer had when it connected, as the kernel recorded them.
    static let option = SocketOptionName(SO_PEERCRED)

    static func read(from channel: Channel) -> EventLoopFuture<Peer> {
        guard let provider = channel as? SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: option)
            .map { (cred: UCred) in Peer(pid: cred.pid, uid: cred.uid, gid: cred.gid) }
    }
}
