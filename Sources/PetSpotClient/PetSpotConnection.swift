#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotJSON
import PetSpotProtocol
import PetSpotText

/// Why talking to the daemon failed (not an error answer: those are `RPCError`). What the
/// daemon sent may be quoted in it (an answer that is not JSON-RPC, a member that does not fit):
/// the description is kept as `VisibleText` writes it, fit for a terminal and a log line.
public struct ClientError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = VisibleText.line(description) }
}

/// One connection to petspotd with plain blocking I/O: the right tool for a command-line
/// client and for tests that drive the daemon like a person would.
public final class PetSpotConnection: DaemonCalling {
    public let socketPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// The read buffer's capacity kept between lines; a larger one is let go after its line.
    static let keptBufferBytes = 1 << 20
    private var nextID = 1
    /// Bounds each call, from its request to the end of its answer, however slowly the bytes
    /// come; a read outside a call waits this long for its line.
    public let timeout: Duration
    /// The longest answer line taken: a daemon sending a line that never ends cannot grow the
    /// client past it. The connection is closed once a line passes it.
    public let maxLineBytes: Int
    /// The end of the call under way (nil between calls).
    private var deadline: ContinuousClock.Instant?
    /// Notifications of this connection's watches that came while a call waited for its answer.
    private var notifications: [DaemonNotification] = []

    /// The default line limit: a report with the daemon's largest default photo (10 MiB, as
    /// base64) and its JSON fits many times over.
    public static let defaultMaxLineBytes = 64 * 1024 * 1024
    /// The default bound of a call: longer than any wait the daemon's defaults allow (a location
    /// wait of location.timeoutMs, 10 s; a submit queued behind others' fsyncs).
    public static let defaultTimeout: Duration = .seconds(120)

    /// Connects; `timeout` bounds every later call, `maxLineBytes` every answer line.
    public init(socketPath: String, timeout: Duration = PetSpotConnection.defaultTimeout,
                maxLineBytes: Int = PetSpotConnection.defaultMaxLineBytes) throws(ClientError) {
        self.socketPath = socketPath
        self.timeout = timeout
        self.maxLineBytes = maxLineBytes
        // Close-on-exec: a program petspot starts (petspot-poster) gets no connection to the daemon.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError("cannot create a socket: \(Self.lastError())") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard socketPath.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw ClientError("socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = Self.lastError()
            Glibc.close(fd)
            throw ClientError("cannot connect to petspotd at \(socketPath): \(reason)")
        }
        self.fd = fd
    }

    deinit {
        close()
    }

    /// Closes the connection; later calls fail with "not connected".
    public func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// The socket a command talks to without `--socket`: PETSPOT_SOCKET, else the system
    /// service's. Never one found in the working directory: in a shared folder anyone could put
    /// a socket there and receive what a user types.
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["PETSPOT_SOCKET"], !path.isEmpty { return path }
        return "/run/petspotd/petspotd.sock"
    }

    /// Sends raw bytes as they are (a line should end in "\n").
    public func send(_ bytes: [UInt8]) throws(ClientError) {
        let end = deadline ?? .now + timeout
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), until: end)
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw ClientError("writing to petspotd failed: \(Self.lastError())")
            }
            offset += n
        }
    }

    /// Waits until the socket is ready for `events`, or throws once `end` has passed (never
    /// without an end: a watch waits as long as it takes).
    private func wait(for events: Int16, until end: ContinuousClock.Instant?) throws(ClientError) {
        guard fd >= 0 else { throw ClientError("not connected to petspotd") }
        while true {
            var milliseconds: Int64 = -1
            if let end {
                let left = ContinuousClock.now.duration(to: end)
                guard left > .zero else {
                    throw ClientError("petspotd did not answer within \(Self.seconds(timeout)) (the client's timeout)")
                }
                milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw ClientError("waiting for petspotd failed: \(Self.lastError())") }
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return fraction == 0 ? "\(whole) s" : "\(Double(whole) + Double(fraction) / 1e18) s"
    }

    public func send(line: String) throws(ClientError) {
        try send(Array((line + "\n").utf8))
    }

    /// The socket, for a caller that waits on it with poll(2) alongside other descriptors.
    public func withDescriptor<R>(_ body: (Int32) throws -> R) rethrows -> R {
        try body(fd)
    }

    /// Half-closes: the daemon answers what it has, then closes.
    public func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The next line the daemon sent, without its newline; nil at the end of the stream.
    public func readLine() throws(ClientError) -> [UInt8]? {
        try readLine(until: deadline ?? .now + timeout)
    }

    private func readLine(until end: ContinuousClock.Instant?) throws(ClientError) -> [UInt8]? {
        switch try receiveLine(waitingUntil: end, waits: true) {
        case .line(let line): line
        case .end, .notYet: nil
        }
    }

    private enum Received {
        case line([UInt8])
        /// The daemon closed the connection and nothing of a line is left.
        case end
        /// No whole line has come yet (only when not waiting).
        case notYet
    }

    /// The next line from the buffer, reading the socket for more: waiting until `end` when
    /// `waits`, else taking only what it holds now.
    private func receiveLine(waitingUntil end: ContinuousClock.Instant?, waits: Bool) throws(ClientError) -> Received {
        var searched = 0
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                if buffer.capacity > Self.keptBufferBytes {
                    // A line of megabytes (a claim with photos) leaves no buffer of its size behind.
                    buffer = Array(buffer[(newline + 1)...])
                } else {
                    buffer.removeSubrange(...newline)
                }
                return .line(line)
            }
            searched = buffer.count
            guard buffer.count <= maxLineBytes else {
                close()
                buffer = []
                throw ClientError("petspotd sent an answer line longer than \(maxLineBytes) bytes (the client's limit); the connection was closed")
            }
            if waits {
                try wait(for: Int16(POLLIN), until: end)
            } else {
                guard fd >= 0 else { throw ClientError("not connected to petspotd") }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if waits { continue }
                    return .notYet
                }
                throw ClientError("reading from petspotd failed: \(Self.lastError())")
            }
            if n == 0 {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll() }
                return .line(buffer)
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The next answer, parsed.
    public func readValue() throws(ClientError) -> JSONValue? {
        try readValue(until: deadline ?? .now + timeout)
    }

    private func readValue(until end: ContinuousClock.Instant?) throws(ClientError) -> JSONValue? {
        guard let line = try readLine(until: end) else { return nil }
        return try Self.parse(line)
    }

    private static func parse(_ line: [UInt8]) throws(ClientError) -> JSONValue {
        do {
            return try JSONParser.parse(line)
        } catch {
            throw ClientError("petspotd sent something that is not JSON: \(error)")
        }
    }

    /// A call by name, for names a person gives (`petspot call`) or tests of unknown names.
    public func call(_ method: String, _ params: JSONObject = JSONObject()) throws(ClientError) -> Result<JSONValue, RPCError> {
        let id = nextID
        nextID += 1
        deadline = .now + timeout
        defer { deadline = nil }
        try send(Array((JSONWriter.string(RPCRequest(id: .int(id), method: method, params: params).json) + "\n").utf8))
        var answer: JSONValue?
        // A watch's notifications may come before the answer: they are kept for `nextNotification`.
        while let value = try readValue() {
            if let notification = DaemonNotification(value) {
                notifications.append(notification)
                continue
            }
            answer = value
            break
        }
        guard let value = answer else { throw ClientError("petspotd closed the connection") }
        guard let response = RPCResponse(json: value) else {
            throw ClientError("petspotd sent an answer that is not JSON-RPC: \(JSONWriter.terminalString(value))")
        }
        guard response.id == .int(id) else {
            throw ClientError("petspotd answered request \(JSONWriter.terminalString(response.id)) when \(id) was expected")
        }
        return response.outcome
    }

    /// The next notification of this connection's watches, waiting for it as long as it takes,
    /// or at most `timeout`; nil when that passed first. A watch has no whole-call deadline.
    public func nextNotification(timeout: Duration? = nil) throws(ClientError) -> DaemonNotification? {
        if !notifications.isEmpty { return notifications.removeFirst() }
        let end = timeout.map { ContinuousClock.now + $0 }
        let value: JSONValue?
        do throws(ClientError) {
            value = try readValue(until: end)
        } catch {
            // Only the wait running out is "nothing came"; a connection lost or closed is not.
            if let end, ContinuousClock.now >= end, fd >= 0 { return nil }
            throw error
        }
        return try Self.notification(from: value)
    }

    /// A notification that needs no waiting: one kept while a call waited for its answer, else
    /// one whose whole line the socket has brought; nil when none has come whole yet. For a
    /// caller that polls the socket (`withDescriptor`) alongside other descriptors: ask this
    /// before each poll, since a line already read into the buffer leaves the socket quiet, and
    /// again each time the socket is readable.
    public func notificationIfReady() throws(ClientError) -> DaemonNotification? {
        if !notifications.isEmpty { return notifications.removeFirst() }
        switch try receiveLine(waitingUntil: nil, waits: false) {
        case .notYet: return nil
        case .end: return try Self.notification(from: nil)
        case .line(let line): return try Self.notification(from: try Self.parse(line))
        }
    }

    /// What a line read while no call waits must be: a notification. nil is the connection's end.
    private static func notification(from value: JSONValue?) throws(ClientError) -> DaemonNotification {
        guard let value else { throw ClientError("petspotd closed the connection") }
        guard let notification = DaemonNotification(value) else {
            throw ClientError("petspotd sent an answer no request waited for: \(JSONWriter.terminalString(value))")
        }
        return notification
    }

    /// Forgets the notifications that came while calls waited for their answers. Each of them
    /// was sent before that answer, so a client whose answers carry what its watches tell (a
    /// flow method's answer is the whole flow) has newer news in the answer already; what its
    /// watches send after the answer is kept.
    public func discardNotificationsBeforeAnswers() {
        notifications.removeAll()
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
