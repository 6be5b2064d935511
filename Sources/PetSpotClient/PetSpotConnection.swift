#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotJSON
import PetSpotProtocol

/// Why talking to the daemon failed (not an error answer: those are `RPCError`).
public struct ClientError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One connection to petspotd with plain blocking I/O: the right tool for a command-line
/// client and for tests that drive the daemon like a person would.
public final class PetSpotConnection {
    public let socketPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    /// Connects; `timeout` bounds every later read and write.
    public init(socketPath: String, timeout: Duration = .seconds(60)) throws(ClientError) {
        self.socketPath = socketPath
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
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
        var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
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

    /// The socket a command talks to: PETSPOT_SOCKET, else the checkout's ./run/petspotd.sock
    /// when it exists, else the system service's.
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["PETSPOT_SOCKET"], !path.isEmpty { return path }
        if FileManager.default.fileExists(atPath: "run/petspotd.sock") { return "run/petspotd.sock" }
        return "/run/petspotd/petspotd.sock"
    }

    /// Sends raw bytes as they are (a line should end in "\n").
    public func send(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ClientError("writing to petspotd failed: \(Self.lastError())")
            }
            offset += n
        }
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
        var searched = 0
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            searched = buffer.count
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError("petspotd did not answer in time") }
                throw ClientError("reading from petspotd failed: \(Self.lastError())")
            }
            if n == 0 {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return buffer
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The next answer, parsed.
    public func readValue() throws(ClientError) -> JSONValue? {
        guard let line = try readLine() else { return nil }
        do {
            return try JSONParser.parse(line)
        } catch {
            throw ClientError("petspotd sent something that is not JSON: \(error)")
        }
    }

    /// One request and its answer: the result, or the daemon's error.
    public func call(_ method: String, _ params: JSONObject = JSONObject()) throws(ClientError) -> Result<JSONValue, RPCError> {
        let id = nextID
        nextID += 1
        try send(Array((JSONWriter.string(RPCRequest(id: .int(id), method: method, params: params).json) + "\n").utf8))
        guard let value = try readValue() else { throw ClientError("petspotd closed the connection") }
        guard let response = RPCResponse(json: value) else {
            throw ClientError("petspotd sent an answer that is not JSON-RPC: \(JSONWriter.string(value))")
        }
        guard response.id == .int(id) else {
            throw ClientError("petspotd answered request \(JSONWriter.string(response.id)) when \(id) was expected")
        }
        return response.outcome
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
