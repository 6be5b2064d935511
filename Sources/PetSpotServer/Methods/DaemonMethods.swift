import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

// rpc.discover, daemon.info, species.list: answers from the build and the settings alone.
extension RequestRouter {
    /// rpc.discover's answers: fixed for a build, so made once rather than on every call.
    static let document = RPCDiscover.Result(document: ProtocolContract.openRPC(version: petspotdVersion, relay: false))
    static let relayDocument = RPCDiscover.Result(document: ProtocolContract.openRPC(version: petspotdVersion, relay: true))

    func rpcDiscover(relay: Bool) -> MethodReply<RPCDiscover.Result> {
        .result(relay ? Self.relayDocument : Self.document)
    }

    /// Written once per settings generation and kept.
    func daemonInfo() -> MethodReply<DaemonInfo.Result> {
        .now(.success(.written(services.writtenInfo { JSONWriter.bytes(Self.daemonInfo($0).json) })))
    }

    private static func daemonInfo(_ settings: RuntimeSettings) -> DaemonInfo.Result {
        let limits = settings.configuration.limits
        return DaemonInfo.Result(version: petspotdVersion, locationProviders: settings.location.providerNames,
                                 limits: DaemonConfiguration.Limits.table.filter(\.inDaemonInfo).map { .init($0.name, limits.effective($0)) })
    }

    func speciesList(_ params: SpeciesList.Params) -> MethodReply<SpeciesList.Result> {
        .result(SpeciesList.Result(species: services.settings.species.options(locale: params.locale ?? .en)))
    }
}
