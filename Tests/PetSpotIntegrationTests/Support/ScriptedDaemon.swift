#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotTestSupport
import NIOConcurrencyHelpers
import PetSpotJSON
import Synchronization

/// A socket where petspotd should be, served by a daemon that speaks real newline-delimited
/// JSON-RPC but answers as its script says: whatever a broken or hostile daemon could send. Each
/// request line is parsed and handed to the script, and the lines it gives (the answer, and any
/// notifications after it) are written back in one write, so that a notification sent after an
/// answer is there when the client reads the answer. The clients are tested against a real
/// socket and a real peer, as `SilentDaemon` does for a daemon that says nothing.
final class ScriptedDaemon: Sendable {
    /// One request as it came.
    struct Request: Sendable {
        let method: String
        let id: JSONValue
        let params: JSONObject
        /// Which request of this method it is, from 1, over every connection.
        let count: Int
    }

    /// The lines to send for a request, each without its newline.
    typealias Script = @Sendable (Request) -> [String]

    let directory: URL
    let socketPath: String
    private let script: Script
    private let listener: Int32
    private let stopping = Synchronization.Atomic<Bool>(false)
    private let clients = NIOLockedValueBox<[Int32]>([])
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    init(script: @escaping Script) throws {
        self.script = script
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-scripted-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("petspotd.sock").path
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TimedOut(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw TimedOut(description: "cannot listen on \(socketPath): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// How many requests of `method` have come so far.
    func received(_ method: String) -> Int {
        counts.withLockedValue { $0[method] ?? 0 }
    }

    /// Stops listening, hangs up on every client and removes the socket's folder. The threads
    /// hold the fake until then: a test stops it (`defer`).
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in clients.withLockedValue({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
        try? FileManager.default.removeItem(at: directory)
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            clients.withLockedValue { $0.append(client) }
            let thread = Thread { [self] in
                serve(client)
                clients.withLockedValue { $0.removeAll { $0 == client } }
                close(client)
            }
            thread.start()
        }
    }

    /// Answers each request line until the client hangs up or the fake stops.
    private func serve(_ fd: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !stopping.load(ordering: .relaxed) {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            pending += chunk[..<n]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let request = parse(line) else { continue }
                let lines = script(request)
                guard lines.isEmpty || send(fd, Array(lines.map { $0 + "\n" }.joined().utf8)) else { return }
            }
        }
    }

    /// A request with a method and an id; anything else is not answered.
    private func parse(_ line: [UInt8]) -> Request? {
        guard let value = try? JSONParser.parse(line), case .object(let object) = value,
              let method = object["method"]?.stringValue, let id = object["id"]
        else { return nil }
        let count = counts.withLockedValue { counts -> Int in
            counts[method, default: 0] += 1
            return counts[method]!
        }
        return Request(method: method, id: id, params: object["params"]?.objectValue ?? JSONObject(), count: count)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
