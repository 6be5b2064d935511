import FuzzSupport
import PetSpotJSON
import PetSpotServer
import PetSpotSettings

// Input: the bytes of a configuration file, parsed and applied on top of the defaults as
// `petspotd --config` does.
// Must hold: a refusal is one message naming the file (and a known key, when it is about a
// value); what is accepted gives the same settings when applied again or afresh, and every
// setting keeps its rule: paths non-empty without NUL, a file mode, known providers once each,
// positions on the globe, a zone of the tz database, limits of at least 1.

fuzz { input in
    guard let json = try? JSONParser.parse(buffer: input) else { return }
    var configuration = DaemonConfiguration()
    do throws(ConfigurationError) {
        try configuration.apply(json, file: "fuzz.json")
    } catch {
        invariant(error.message.hasPrefix("fuzz.json: ") && !error.message.contains("\n"), "refusal: \(error.message)")
        if let key = error.key { invariant(DaemonConfiguration.knownKeys.contains(key), "refusal names key \(key)") }
        return
    }

    var again = configuration
    var fresh = DaemonConfiguration()
    do throws(ConfigurationError) {
        try again.apply(json, file: "fuzz.json")
        try fresh.apply(json, file: "fuzz.json")
    } catch {
        invariant(false, "accepted once, refused the second time: \(error)")
    }
    invariant(again == configuration && fresh == configuration, "applying the same file twice gives other settings")

    for path in [configuration.socketPath, configuration.databasePath, configuration.speciesFile] {
        invariant(!path.isEmpty && !path.contains("\0"), "path \(path)")
    }
    invariant(configuration.socketMode <= 0o777, "socket mode \(configuration.socketMode)")
    invariant(SettingParsers.providersProblem(configuration.locationProviders) == nil, "providers \(configuration.locationProviders)")
    invariant(SettingParsers.simulatedModes.contains(configuration.simulatedMode), "simulated mode \(configuration.simulatedMode)")
    for position in [configuration.simulatedPosition] + configuration.simulatedTrack {
        invariant(SettingParsers.positionProblem(latitude: position.latitude, longitude: position.longitude) == nil,
                  "position \(position.latitude), \(position.longitude)")
    }
    if let zone = configuration.timeZone { invariant(LocalCalendar(zone: zone) != nil, "time zone \(zone)") }
    invariant(!configuration.gpsdHost.isEmpty && (1...65_535).contains(configuration.gpsdPort), "gpsd \(configuration.gpsdHost):\(configuration.gpsdPort)")
    let limits = configuration.limits
    let counts = [limits.flowIdleTimeoutSeconds, limits.maxLineBytes, limits.maxFlowsPerUser, limits.maxFlows,
                  limits.maxConnections, limits.maxConnectionsPerUser, limits.maxBufferedBytes, limits.maxBufferedBytesPerUser,
                  configuration.relay.maxConnectionsPerUser, limits.maxPendingOutputBytes, limits.stalledReaderTimeoutSeconds,
                  limits.maxQueuedRequests, limits.maxBatchSize, limits.maxJSONDepth, limits.maxPhotoBytes,
                  limits.maxSpooledPhotoBytes, limits.maxSpooledPhotoBytesPerUser, limits.maxReportsPage, configuration.logFaultIntervalSeconds,
                  configuration.locationTimeoutMs, configuration.gpsdReconnectMaxMs]
    invariant(counts.allSatisfy { $0 >= 1 }, "a limit below 1: \(counts)")
    invariant(configuration.locationMaxAgeMs >= 0, "location.maxAgeMs \(configuration.locationMaxAgeMs)")
    invariant(limits.minFreeDiskBytes >= 0, "limits.minFreeDiskBytes \(limits.minFreeDiskBytes)")
}
