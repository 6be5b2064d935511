#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram per message to $NOTIFY_SOCKET (a path, or with
/// a leading "@" a name in the abstract namespace).
public struct SystemdNotifier: Sendable {
    private let address: [UInt8]
    private let abstract: Bool
    /// Half of WATCHDOG_USEC, when systemd asked for keep-alive pings from this process.
    public let watchdogInterval: Duration?

    public init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], path.count > 1 else { return nil }
        abstract = path.hasPrefix("@")
        address = Array((abstract ? path.dropFirst() : Substring(path)).utf8)
        if let usecText = environment["WATCHDOG_USEC"], let usec = Int64(usecText), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true
        {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends "KEY=VALUE" lines; returns whether the datagram went out.
    @discardableResult
    public func notify(_ lines: String...) -> Bool {
        let message = Array(lines.joined(separator: "\n").utf8)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sockaddr = sockaddr_un()
        sockaddr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: sockaddr.sun_path)
        guard address.count < capacity else { return false }
        // Abstract names start with a NUL byte and are not NUL-terminated.
        let offset = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &sockaddr.sun_path) { raw in
            for (i, byte) in address.enumerated() { raw[i + offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + address.count + (abstract ? 0 : 1))
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &sockaddr) {
                $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == message.count
    }
}
