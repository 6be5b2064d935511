import PetSpotFlow
import PetSpotLocation
import PetSpotJSON
import PetSpotProtocol

// location.*: the location service, for this caller; always later (a fix, a directory service).
extension RequestRouter {
    func locationCurrent(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let timeoutMs = try p.optionalInt("timeoutMs", in: 1...services.configuration.locationTimeoutMs)
        let maxAgeMs = try p.optionalInt("maxAgeMs", in: 0...3_600_000)
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        let location = services.location
        return .work { () async throws(RPCError) -> JSONValue in
            let outcome = await location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                 timeout: timeoutMs.map { .milliseconds($0) },
                                                 maxAge: maxAgeMs.map { .milliseconds($0) })
            return ["location": outcome.json(locale: locale)]
        }
    }

    func locationStatus(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        try p.finish()
        let location = services.location
        // Off the event loop: the permission check may ask a directory service.
        return .work { await location.status(for: LocationClient(uid: peer.uid, gid: peer.gid)) }
    }
}
