import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotViews

/// location.*: the location service, for this caller; always later (a fix, a directory service).
struct LocationHandlers: Sendable {
    let services: DaemonServices

    func current(_ params: LocationCurrent.Params, _ context: RequestContext) -> Reply<LocationCurrent.Result> {
        let (location, peer) = (services.location, context.peer)
        return .later { () async -> LocationCurrent.Result in
            let outcome = await location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                 timeout: params.timeoutMs.map { .milliseconds($0) },
                                                 maxAge: params.maxAgeMs.map { .milliseconds($0) })
            return LocationCurrent.Result(location: outcome.view(locale: params.locale ?? .en))
        }
    }

    func status(_ params: NoParams, _ context: RequestContext) -> Reply<LocationStatusView> {
        let (location, peer) = (services.location, context.peer)
        // Off the event loop: the permission check may ask a directory service.
        return .later { await location.status(for: LocationClient(uid: peer.uid, gid: peer.gid)) }
    }
}
