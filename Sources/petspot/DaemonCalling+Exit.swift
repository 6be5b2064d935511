import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

extension DaemonCalling {
    /// A call whose error answer ends the command with one line and exit code 1, and whose
    /// lost connection (or an answer that does not fit the contract) ends it with exit code 69.
    func callOrExit<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) -> M.Result {
        do {
            switch try call(method, params) {
            case .success(let result): return result
            case .failure(let error): fail("petspot: \(M.name): \(error.message) [\(error.kind.rawValue)]", code: ExitStatus.failure)
            }
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }

    func callOrExit<M: RPCMethodSpec>(_ method: M.Type) -> M.Result where M.Params == NoParams {
        callOrExit(method, NoParams())
    }
}

extension PetSpotConnection {
    /// Waits for the watch's next `N`, as long as it takes; any other notification is skipped.
    /// A lost connection ends the command with exit code 69.
    func nextOrExit<N: RPCNotificationSpec>(_ notification: N.Type) -> N.Params {
        switch nextOrExit(notification, orEnded: false) {
        case .notified(let params): params
        case .ended: fatalError("a watch's end is not asked for")
        }
    }

    /// What a watch tells next: `N`, or (with `orEnded`) that the daemon ended the watch.
    enum Told<Params> {
        case notified(Params)
        case ended(WatchEnded.Params)
    }

    /// Waits for the watch's next `N`, or its `watch.ended` when `orEnded`; any other
    /// notification is skipped. A lost connection ends the command with exit code 69.
    func nextOrExit<N: RPCNotificationSpec>(_ notification: N.Type, orEnded: Bool) -> Told<N.Params> {
        do {
            while true {
                guard let next = try nextNotification() else { continue }
                if let params = try next.reading(notification) { return .notified(params) }
                if orEnded, let ended = try next.reading(WatchEnded.self) { return .ended(ended) }
            }
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }
}
