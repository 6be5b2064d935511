/// The public methods. Names are fixed by the protocol; more may be added.
public enum RPCMethod: String, Sendable, CaseIterable {
    /// The OpenRPC document of what this caller may use (`ProtocolContract`).
    case rpcDiscover = "rpc.discover"
    case daemonInfo = "daemon.info"
    case speciesList = "species.list"
    case flowStart = "flow.start"
    case flowGet = "flow.get"
    case flowUpdate = "flow.update"
    case flowContinue = "flow.continue"
    case flowBack = "flow.back"
    case flowCancel = "flow.cancel"
    case flowRequestLocation = "flow.requestLocation"
    case flowDismissAlert = "flow.dismissAlert"
    case flowSubmit = "flow.submit"
    case locationCurrent = "location.current"
    case locationStatus = "location.status"
    case reportsList = "reports.list"
    case reportsGet = "reports.get"
    case relayClaim = "relay.claim"
    case relayAck = "relay.ack"
    case relayStatus = "relay.status"
    case locationWatch = "location.watch"
    case flowWatch = "flow.watch"
    case reportsWatch = "reports.watch"
    case relayWatch = "relay.watch"
    case unwatch = "unwatch"

    /// Only members of `relay.group` may call it; to anyone else it does not exist.
    public var isRelay: Bool {
        switch self {
        case .relayClaim, .relayAck, .relayStatus, .relayWatch: true
        default: false
        }
    }
}

/// The protocol revision a client can check in `daemon.info`. 2: `rpc.discover`; 3: the
/// watches and their notifications.
public let petspotProtocolVersion = 3
