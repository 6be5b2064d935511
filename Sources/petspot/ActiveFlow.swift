import PetSpotClient
import PetSpotProtocol
import PetSpotJSON
import NIOConcurrencyHelpers

/// The flow a Ctrl-C must cancel, shared between the session on the main thread and the
/// signal handler on its own.
final class ActiveFlow: Sendable {
    private let id = NIOLockedValueBox<String?>(nil)

    func set(_ newID: String?) {
        id.withLockedValue { $0 = newID }
    }

    /// The flow id, once: a second signal finds nothing left to cancel.
    func take() -> String? {
        id.withLockedValue { current in
            defer { current = nil }
            return current
        }
    }

    /// Cancels on a connection of its own, because the session's may be waiting for an answer
    /// (a location request) that would come first. True when the daemon cancelled it.
    static func cancel(_ flowID: String, socketPath: String) -> Bool {
        guard let connection = try? PetSpotConnection(socketPath: socketPath, timeout: .seconds(5)),
            case .success? = try? connection.call(FlowCancel.self, FlowIDParams(flowId: flowID))
        else { return false }
        return true
    }
}
