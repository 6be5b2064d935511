import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol

// rpc.discover, daemon.info, species.list: answers from the build and the settings alone.
extension RequestRouter {
    /// rpc.discover's answers: fixed for a build, so made once rather than on every call.
    static let document = ProtocolContract.openRPC(version: petspotdVersion, relay: false)
    static let relayDocument = ProtocolContract.openRPC(version: petspotdVersion, relay: true)

    func rpcDiscover(_ p: inout RPCParams, relay: Bool) throws(RPCError) -> Reply<MethodOutcome> {
        try p.finish()
        return .result(relay ? Self.relayDocument : Self.document)
    }

    func daemonInfo(_ p: inout RPCParams) throws(RPCError) -> Reply<MethodOutcome> {
        try p.finish()
        return .now(.success(.written(services.writtenInfo { JSONWriter.bytes(Self.daemonInfo($0)) })))
    }

    private static func daemonInfo(_ settings: RuntimeSettings) -> JSONValue {
        let limits = settings.configuration.limits
        return [
            "name": "petspotd",
            "version": .string(petspotdVersion),
            "protocolVersion": .int(petspotProtocolVersion),
            "locationProviders": .array(settings.location.providerNames.map(JSONValue.string)),
            "limits": [
                "flowIdleTimeoutSeconds": .int(limits.flowIdleTimeoutSeconds),
                "maxLineBytes": .int(limits.maxLineBytes),
                "maxFlowsPerUser": .int(limits.maxFlowsPerUser),
                "maxFlows": .int(limits.maxFlows),
                "maxConnections": .int(limits.maxConnections),
                "maxPendingOutputBytes": .int(limits.maxPendingOutputBytes),
                "stalledReaderTimeoutSeconds": .int(limits.stalledReaderTimeoutSeconds),
                "maxQueuedRequests": .int(limits.maxQueuedRequests),
                "maxBatchSize": .int(limits.maxBatchSize),
                "maxJSONDepth": .int(limits.maxJSONDepth),
                "maxPhotoBytes": .int(limits.maxPhotoBytes),
                "maxPhotoBytesInMemory": .int(limits.maxPhotoBytesInMemory),
                "maxReportsPage": .int(limits.maxReportsPage),
            ],
        ]
    }

    func speciesList(_ p: inout RPCParams) throws(RPCError) -> Reply<MethodOutcome> {
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        return .result(["species": .array(services.settings.species.options(locale: locale).map(\.json))])
    }
}
