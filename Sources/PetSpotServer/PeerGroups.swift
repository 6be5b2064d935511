#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// SO_PEERGROUPS: the supplementary groups the peer had when it connected, as the kernel
/// recorded them. NIO reads options of a fixed size only; this one is an array of gid_t of any
/// length, so it is read on the descriptor itself, growing the buffer when the kernel says ERANGE.
enum PeerGroups {
    /// Linux's SO_PEERGROUPS (since 4.13); Glibc's module does not export it.
    static let option: CInt = 59

    /// Runs on the channel's event loop: getsockopt on a connected socket does not block.
    /// A socket that cannot tell gives no supplementary groups (membership by them is then denied).
    static func read(from channel: any Channel) -> EventLoopFuture<[UInt32]> {
        channel.eventLoop.submit {
            let groups = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { fd in
                try Self.groups(of: fd)
            }
            return groups ?? []
        }
    }

    struct ReadFailed: Error, CustomStringConvertible {
        let errno: CInt
        var description: String { "getsockopt(SO_PEERGROUPS): \(String(cString: strerror(errno)))" }
    }

    /// `initialCapacity`: gids the first try has room for (most peers have a handful).
    static func groups(of fd: CInt, initialCapacity: Int = 16) throws -> [UInt32] {
        var capacity = initialCapacity
        let size = MemoryLayout<gid_t>.size
        while true {
            // One element at least, so the buffer has an address even when capacity is 0.
            var list = [gid_t](repeating: 0, count: max(capacity, 1))
            var length = socklen_t(capacity * size)
            let status = list.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, option, $0.baseAddress, &length) }
            if status == 0 { return Array(list.prefix(Int(length) / size)) }
            // ERANGE: `length` now says how many bytes the list needs.
            guard errno == ERANGE, Int(length) > capacity * size else { throw ReadFailed(errno: errno) }
            capacity = Int(length) / size
        }
    }
}
