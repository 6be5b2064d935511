#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOPosix
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

/// The relay's connection to the local daemon, with the relay.* calls it makes.
///
/// It drives the blocking `PetSpotConnection` on a thread of its own (an `NIOThreadPool` of
/// one) rather than a new NIO client: that client already frames lines of any length (a claim
/// with photos is several MiB on one line), times out reads and speaks the envelope the CLI and
/// the tests use; one thread keeps its blocking reads off the cooperative pool, and the relay
/// makes one call at a time anyway.
public final class DaemonLink: Sendable {
    public let socketPath: String
    private let timeout: Duration
    private let maxLineBytes: Int
    private let pool: NIOThreadPool
    /// Touched only on the pool's one thread; the lock makes that checkable, not contended.
    private let connection = NIOLockedValueBox<ConnectionBox>(ConnectionBox())

    private final class ConnectionBox: @unchecked Sendable {
        var connection: PetSpotConnection?
        var made = 0
    }

    /// How many connections the link has made: one more means the daemon may have been another
    /// (restarted, say), whose settings (its box name) are to be asked again.
    public var connectionsMade: Int { connection.withLockedValue { $0.made } }

    /// `timeout` bounds each call from request to whole answer; `maxLineBytes` each answer line.
    public init(socketPath: String, timeout: Duration = .seconds(60), maxLineBytes: Int = PetSpotConnection.defaultMaxLineBytes) {
        self.socketPath = socketPath
        self.timeout = timeout
        self.maxLineBytes = maxLineBytes
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// Closes the connection (the next call connects again) and stops the thread.
    public func shutdown() async {
        disconnect()
        try? await pool.shutdownGracefully()
    }

    public func disconnect() {
        connection.withLockedValue { $0.connection?.close(); $0.connection = nil }
    }

    public func claim(limit: Int) async throws -> ClaimBatch {
        try ClaimBatch(try await call(RelayClaim.self, RelayClaim.Params(limit: limit)))
    }

    /// Marks reports delivered, each at the version stored centrally; the daemon has made that
    /// durable when this returns.
    @discardableResult
    public func acknowledge(_ reports: [RelayAck.Delivered]) async throws -> (delivered: Int, alreadyDelivered: Int) {
        let ack = try await call(RelayAck.self, RelayAck.Params(reports: reports))
        return (ack.delivered, ack.alreadyDelivered)
    }

    public func status() async throws -> RelayDaemonStatus {
        try await call(RelayStatus.self, NoParams())
    }

    /// A call of `M`; an answer that does not fit its result names the method and the member.
    public func call<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) async throws -> M.Result {
        try DaemonAnswerError.reading(M.name, try await call(M.name, params.json), M.Result.init(json:))
    }

    /// One call on the link's thread; a failed connection is dropped so that the next call
    /// connects anew. Cancelling the calling task cuts a call that waits on the daemon short
    /// (the socket is shut down under it), so that a stop never waits for a daemon that hangs.
    public func call(_ method: String, _ params: JSONObject = JSONObject()) async throws -> JSONValue {
        let socketPath = self.socketPath, timeout = self.timeout, maxLineBytes = self.maxLineBytes
        let interrupt = CallInterrupt()
        let outcome: Result<JSONValue, RPCError> = try await withTaskCancellationHandler {
            try await pool.runIfActive { [connection] in
                try connection.withLockedValue { box throws -> Result<JSONValue, RPCError> in
                    do throws(ClientError) {
                        let conn: PetSpotConnection
                        if let existing = box.connection {
                            conn = existing
                        } else {
                            conn = try PetSpotConnection(socketPath: socketPath, timeout: timeout, maxLineBytes: maxLineBytes)
                            box.connection = conn
                            box.made += 1
                        }
                        guard conn.withDescriptor({ interrupt.begin($0) }) else { throw ClientError("cancelled") }
                        defer { interrupt.end() }
                        return try conn.call(method, params)
                    } catch {
                        box.connection?.close()
                        box.connection = nil
                        throw DaemonUnreachable(reason: error.description)
                    }
                }
            }
        } onCancel: {
            interrupt.cancel()
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error): throw DaemonRefused(method: method, error: error)
        }
    }
}

/// Lets a cancelled task wake the link's thread from a blocking call: the descriptor the call
/// waits on is shut down, never closed, and only while the call holds it.
final class CallInterrupt: Sendable {
    private let state = NIOLockedValueBox<(descriptor: Int32, cancelled: Bool)>((-1, false))

    /// The call starts on `descriptor`; false when it was cancelled already.
    func begin(_ descriptor: Int32) -> Bool {
        state.withLockedValue { state in
            guard !state.cancelled else { return false }
            state.descriptor = descriptor
            return true
        }
    }

    func end() {
        state.withLockedValue { $0.descriptor = -1 }
    }

    func cancel() {
        state.withLockedValue { state in
            state.cancelled = true
            if state.descriptor >= 0 { shutdown(state.descriptor, Int32(SHUT_RDWR)) }
        }
    }
}

/// The daemon could not be reached or the connection broke.
public struct DaemonUnreachable: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// The daemon answered a relay call with an error (e.g. methodNotFound: this user is not in relay.group).
public struct DaemonRefused: Error, Sendable, CustomStringConvertible {
    public let method: String
    public let error: RPCError
    public var description: String {
        if error.kind == .methodNotFound {
            return "petspotd refused \(method) as an unknown method: the relay's user is not in the daemon's relay.group, or the daemon is too old for relays"
        }
        return "petspotd refused \(method): \(error.message)"
    }
}

/// `relay.status`'s answer.
public typealias RelayDaemonStatus = RelayStatus.Result
