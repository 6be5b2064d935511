import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// rpc.discover, daemon.info, species.list: answers from the build and the settings alone.
struct DaemonHandlers: Sendable {
    let services: DaemonServices

    /// rpc.discover's answers: fixed for a build, so made once rather than on every call.
    static let document = RPCDiscover.Result(document: ProtocolContract.openRPC(version: petspotdVersion, relay: false))
    static let relayDocument = RPCDiscover.Result(document: ProtocolContract.openRPC(version: petspotdVersion, relay: true))

    func discover(_ params: NoParams, _ context: RequestContext) -> Reply<RPCDiscover.Result> {
        .now(context.isRelay ? Self.relayDocument : Self.document)
    }

    /// Written once per settings generation and kept.
    func info(_ params: NoParams, _ context: RequestContext) -> Reply<DaemonInfo.Result> {
        .written(services.writtenInfo { JSONWriter.bytes(Self.info($0).json) })
    }

    private static func info(_ settings: RuntimeSettings) -> DaemonInfo.Result {
        let limits = settings.configuration.limits
        return DaemonInfo.Result(version: petspotdVersion, box: settings.boxName, locationProviders: settings.location.providerNames,
                                 limits: DaemonConfiguration.Limits.table.filter(\.inDaemonInfo).map { .init($0.name, limits.effective($0)) })
    }

    func species(_ params: SpeciesList.Params, _ context: RequestContext) -> Reply<SpeciesList.Result> {
        .now(SpeciesList.Result(species: services.settings.species.options(locale: params.locale ?? .en)))
    }
}
