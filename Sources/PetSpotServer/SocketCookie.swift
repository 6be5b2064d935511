#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import PetSpotSystem

/// SO_COOKIE: the kernel's unique, never reused number of a socket. NIO does not hand out a
/// channel's descriptor; the cookie finds it, so that shutting down gives the kernel's own
/// boundary between what a client sent before the daemon began to stop and what came after.
enum SocketCookie {
    static let option: SocketOptionName = 57

    static func read(from channel: any Channel) -> EventLoopFuture<UInt64?> {
        guard let provider = channel as? SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: option)
            .map { (cookie: UInt64) in Optional(cookie) }
            .recover { _ in nil }
    }

    /// Every socket this process has open, by cookie. A descriptor found here stays the same
    /// socket as long as its channel is open: a number is only reused after a close.
    static func descriptors() -> [UInt64: CInt] {
        var found: [UInt64: CInt] = [:]
        for name in (try? DirectoryListing.names(in: "/proc/self/fd")) ?? [] {
            guard let fd = CInt(name) else { continue }
            var cookie: UInt64 = 0
            var length = socklen_t(MemoryLayout<UInt64>.size)
            if getsockopt(fd, SOL_SOCKET, option, &cookie, &length) == 0 { found[cookie] = fd }
        }
        return found
    }
}
