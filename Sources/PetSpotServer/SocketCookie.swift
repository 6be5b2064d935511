#if canImport(Glibc)
import Glibc
#endif
import NIOCore

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
        guard let dir = opendir("/proc/self/fd") else { return [:] }
        defer { closedir(dir) }
        var found: [UInt64: CInt] = [:]
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = CInt(name) else { continue }
            var cookie: UInt64 = 0
            var length = socklen_t(MemoryLayout<UInt64>.size)
            if getsockopt(fd, SOL_SOCKET, option, &cookie, &length) == 0 { found[cookie] = fd }
        }
        return found
    }
}
