import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotViews

// location.*: the location service, for this caller; always later (a fix, a directory service).
extension RequestRouter {
    func locationCurrent(_ params: LocationCurrent.Params, _ peer: Peer) -> MethodReply<LocationCurrent.Result> {
        let location = services.location
        return .work { () async -> LocationCurrent.Result in
            let outcome = await location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                 timeout: params.timeoutMs.map { .milliseconds($0) },
                                                 maxAge: params.maxAgeMs.map { .milliseconds($0) })
            return LocationCurrent.Result(location: outcome.view(locale: params.locale ?? .en))
        }
    }

    func locationStatus(_ peer: Peer) -> MethodReply<LocationStatusView> {
        let location = services.location
        // Off the event loop: the permission check may ask a directory service.
        return .work { await location.status(for: LocationClient(uid: peer.uid, gid: peer.gid)) }
    }
}
