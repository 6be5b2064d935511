import PetSpotJSON

/// One method of the protocol as a type: its name, who may call it, its params and result with
/// their JSON, and its entry in the OpenRPC document. The daemon reads `Params` and writes
/// `Result`; a client writes `Params` and reads `Result`; both go through these types alone.
/// Adding a method: a type here listed in `ProtocolMethods.all`, and its registration and
/// handler in the daemon (docs/ARCHITECTURE.md).
public protocol RPCMethodSpec: SendableMetatype {
    associatedtype Params: RPCParamsCoding
    associatedtype Result: RPCResultCoding
    /// Its name on the wire, fixed by the protocol.
    static var name: String { get }
    /// Who may call it; to anyone else it does not exist.
    static var visibility: MethodVisibility { get }
    /// Its summary, params and result as JSON Schema, errors and an example.
    static var contract: MethodContract { get }
}

extension RPCMethodSpec {
    public static var visibility: MethodVisibility { .everyone }
}

/// Who may call a method: every user of the socket, or only members of `relay.group`.
public enum MethodVisibility: Sendable, Equatable {
    case everyone
    case relayGroup
}

/// The protocol revision a client can check in `daemon.info`. 2: `rpc.discover`; 3: the
/// watches and their notifications; 4: a report's life (status, version, close, renew, amend,
/// erase, retention); 5: the animal list (`animals.*`); 6: the fleet's list coming down
/// (`relay.fleet`, `relay.fleetPut`).
public let petspotProtocolVersion = 6

/// A method's params: read from a request by the daemon, written by a client.
public protocol RPCParamsCoding: Sendable {
    /// Reads every member and refuses any other, naming it; `bounds` are the daemon's limits
    /// now, which some ranges follow.
    init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError)
    /// By name, in the order the contract lists them; a member left out is not written.
    var json: JSONObject { get }
}

/// A method's result: written by the daemon, read by a client.
public protocol RPCResultCoding: Sendable {
    var json: JSONValue { get }
    /// Reads an answer; an error names the member at fault ("result.flow.screen …").
    init(json: JSONValue) throws(FlowViewError)
}

/// The daemon's limits that a parameter's range follows (they change on reload).
public struct ParamBounds: Sendable, Equatable {
    /// `location.timeoutMs`: the longest wait a caller may ask for.
    public var locationTimeoutMs: Int
    /// `limits.maxReportsPage`.
    public var maxReportsPage: Int

    public init(locationTimeoutMs: Int, maxReportsPage: Int) {
        self.locationTimeoutMs = locationTimeoutMs
        self.maxReportsPage = maxReportsPage
    }

    /// The widest ranges the contract allows, for reading params outside a daemon.
    public static let widest = ParamBounds(locationTimeoutMs: Int(Int32.max), maxReportsPage: 10_000)
}

/// The params of a method that takes none.
public struct NoParams: RPCParamsCoding, Equatable {
    public init() {}

    public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
        try p.finish()
    }

    public var json: JSONObject { [:] }
}

/// The methods as types, the one list of them: what `ProtocolContract.methods` and so
/// `rpc.discover`, the daemon's "no method" error, `petspot call --list` and shell completion
/// fold over; the daemon registers a handler for each, and docs/PROTOCOL.md's method reference
/// is checked against it.
public enum ProtocolMethods {
    public static let all: [any RPCMethodSpec.Type] = [
        RPCDiscover.self, DaemonInfo.self, SpeciesList.self,
        FlowStart.self, FlowGet.self, FlowUpdate.self, FlowContinue.self, FlowBack.self, FlowCancel.self,
        FlowRequestLocation.self, FlowDismissAlert.self, FlowSubmit.self,
        LocationCurrent.self, LocationStatus.self,
        ReportsList.self, ReportsGet.self, ReportsClose.self, ReportsRenew.self, ReportsAmend.self, ReportsErase.self, ReportsPhoto.self,
        AnimalsList.self, AnimalsGet.self, AnimalsPhoto.self, AnimalsLookup.self,
        RelayClaim.self, RelayAck.self, RelayStatus.self, RelayFleet.self, RelayFleetPut.self,
        LocationWatch.self, FlowWatch.self, ReportsWatch.self, AnimalsWatch.self, RelayWatch.self, Unwatch.self,
    ]

    /// The methods a caller may use: all of them for a member of the relay group.
    public static func offered(toRelay relay: Bool) -> [any RPCMethodSpec.Type] {
        all.filter { relay || $0.visibility == .everyone }
    }

    /// The method named `name`, if the protocol has one.
    public static func named(_ name: String) -> (any RPCMethodSpec.Type)? {
        all.first { $0.name == name }
    }
}
