#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotTestSupport
import NIOConcurrencyHelpers
import Synchronization

/// A stand-in for systemd's notification socket: collects every datagram the daemon sends.
final class NotifyListener: Sendable {
    let path: String
    /// What to put in NOTIFY_SOCKET: the path, or "@name" for the abstract namespace.
    let address: String
    private let fd: Int32
    private let received = NIOLockedValueBox<[String]>([])
    private let stopped = Synchronization.Atomic<Bool>(false)

    init(directory: URL, abstract: Bool = false) throws {
        path = directory.appendingPathComponent("notify.sock").path
        let name = abstract ? "petspotd-test-\(UUID().uuidString.prefix(8))" : path
        address = abstract ? "@" + name : path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var sockaddr = sockaddr_un()
        sockaddr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let offset = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &sockaddr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i + offset] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &sockaddr) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TimedOut(description: "cannot bind the notify socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in receive() }
        thread.start()
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .relaxed) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let message = String(decoding: buffer[..<n], as: UTF8.self)
                received.withLockedValue { $0.append(message) }
            } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                break
            }
        }
        Glibc.close(fd)
    }

    /// Ends the receiving thread (within its 100 ms read timeout) and closes the socket.
    func close() {
        stopped.store(true, ordering: .relaxed)
    }

    var messages: [String] { received.withLockedValue { $0 } }

    /// Every line of every message, in order.
    var lines: [String] { messages.flatMap { $0.split(separator: "\n").map(String.init) } }

    func count(of line: String) -> Int { lines.filter { $0 == line }.count }
}

extension DaemonProcess {
    /// A daemon (not yet started) whose NOTIFY_SOCKET is a listener in its own folder, as under
    /// systemd; `environment` is added to it (WATCHDOG_USEC, say). Close the listener when done.
    static func notifying(abstract: Bool = false, environment: [String: String] = [:]) throws -> (daemon: DaemonProcess, listener: NotifyListener) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-notify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let listener = try NotifyListener(directory: dir, abstract: abstract)
        let daemon = try DaemonProcess(directory: dir, environment: environment.merging(["NOTIFY_SOCKET": listener.address]) { $1 })
        return (daemon, listener)
    }
}
