import PetSpotText

/// What `petspot-relay --status` prints, and its exit status.
///
/// Exit statuses (also in docs/OPERATIONS.md):
///   0  the daemon answered relay.status and the relay's last state has no error in force
///   1  the relay's last state has an error in force (petspotd or PostgreSQL away, TLS refused)
///   2  the daemon could not be asked (not running, or this user is not in relay.group)
///   3  no state file: the relay has not run here (or its state file is elsewhere)
public struct RelayStatusReport: Sendable, Equatable {
    public enum Outcome: Int32, Sendable {
        case healthy = 0
        case relayError = 1
        case daemonUnavailable = 2
        case noState = 3
    }

    public let daemon: Result<RelayDaemonStatus, StatusProblem>
    public let state: Result<RelayState?, StatusProblem>

    public struct StatusProblem: Error, Sendable, Equatable {
        public let text: String
        public init(_ text: String) { self.text = text }
    }

    public init(daemon: Result<RelayDaemonStatus, StatusProblem>, state: Result<RelayState?, StatusProblem>) {
        self.daemon = daemon
        self.state = state
    }

    /// Asks the daemon and reads the state file.
    public static func gather(link: DaemonLink, stateFile: StateFile) async -> RelayStatusReport {
        let daemon: Result<RelayDaemonStatus, StatusProblem>
        do {
            daemon = .success(try await link.status())
        } catch {
            daemon = .failure(StatusProblem("\(error)"))
        }
        await link.shutdown()
        let state: Result<RelayState?, StatusProblem>
        do {
            state = .success(try stateFile.read())
        } catch {
            state = .failure(StatusProblem(error.description))
        }
        return RelayStatusReport(daemon: daemon, state: state)
    }

    public var outcome: Outcome {
        if case .failure = daemon { return .daemonUnavailable }
        guard case .success(let state?) = state else { return .noState }
        return state.currentError == nil ? .healthy : .relayError
    }

    public var text: String {
        var lines: [String] = []
        switch daemon {
        case .success(let status):
            lines.append("pending: \(status.pending) (claimed \(status.claimed); delivered \(status.delivered) in all)")
            lines.append("last delivery (daemon): \(status.lastDeliveredAt ?? "never")")
        case .failure(let problem):
            lines.append("pending: unknown: \(problem.text)")
        }
        switch state {
        case .success(let state?):
            lines.append("last delivery (relay): \(state.lastDeliveryAt ?? "none since \(state.startedAt)")")
            if let error = state.lastError {
                lines.append("last error: \(error) (at \(state.lastErrorAt ?? "?"))")
            } else {
                lines.append("last error: none")
            }
            lines.append("now: \(state.currentError ?? "petspotd \(state.daemon.name), PostgreSQL \(state.postgres.name)")")
            if let fleet = state.fleet {
                lines.append("fleet: cursor \(fleet.cursor) of \(fleet.head) (\(fleet.behind) behind); \(fleet.reports) other boxes' reports on this box; since the start \(fleet.listed) listed, \(fleet.removed) removed, \(fleet.refused) refused; last page \(fleet.lastPageAt ?? "none yet")\(fleet.problem.map { "; now: \($0)" } ?? "")")
            } else {
                lines.append("fleet: nothing brought down yet")
            }
            lines.append("box: \(state.box ?? "not yet told by petspotd"); since \(state.startedAt): \(state.delivered) delivered (\(state.storedNew) new centrally, \(state.alreadyStored) already there); state written \(state.updatedAt) by pid \(state.pid)")
        case .success(nil):
            lines.append("last delivery (relay): unknown: no state file yet (has the relay run?)")
        case .failure(let problem):
            lines.append("relay state: \(problem.text)")
        }
        // Errors quote PostgreSQL and the daemon, and the state file may have been edited.
        return lines.map(VisibleText.line).joined(separator: "\n")
    }
}
