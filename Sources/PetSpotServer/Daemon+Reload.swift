import Logging
import PetSpotSettings

// SIGHUP: the settings a reload may replace, put in force while flows and connections stay.
extension Daemon {
    /// Re-reads what can change at run time — location settings, limits, the species list,
    /// the time zone — keeping every flow and connection. Returns what it could not apply.
    public func reload(_ configuration: DaemonConfiguration) -> [String] {
        notifier?.notify("RELOADING=1", "MONOTONIC_USEC=\(services.clock.now.microsecondsSinceOrigin)")
        defer { notifier?.notify("READY=1", "STATUS=Serving: reloaded") }
        let current = services.settings
        let new: RuntimeSettings
        do {
            new = try RuntimeSettings.make(configuration, clock: services.clock, logger: logger, reusing: current.location)
        } catch {
            logger.error("reload refused; the settings in force stay", metadata: ["error": "\(error)"])
            return ["nothing: \(error)"]
        }
        let old = current.configuration
        var notReloaded = DaemonConfiguration.restartOnlyChanges(from: old, to: configuration).map { "\($0) (restart to apply)" }
        if old.limits.flowIdleTimeoutSeconds != configuration.limits.flowIdleTimeoutSeconds {
            notReloaded.append("how often idle flows are swept (the new timeout itself applies now)")
        }
        services.replace(with: new)
        services.registry.update(limits: configuration.limits)
        tracker.maxConnections.store(configuration.limits.maxConnections, ordering: .relaxed)
        buffers.update(limits: configuration.limits.bufferBudget)
        if configuration.limits.maxConnections > old.limits.maxConnections {
            FileDescriptorLimit.ensure(maxConnections: configuration.limits.maxConnections, logger: logger)
        }
        if new.location !== current.location {
            location.replaced(current.location, with: new.location)
            locationNotifier.follow(new.location)
        } else {
            // Permission and the maximum age may have changed: watches look again.
            locationNotifier.poke()
        }
        logger.info("reloaded", metadata: [
            "config": "\(configuration.configFile)", "providers": "\(new.location.providerNames.joined(separator: ","))",
            "species": "\(new.species.species.count)",
        ])
        for item in notReloaded {
            logger.warning("not reloaded", metadata: ["setting": "\(item)"])
        }
        warnIfNoRelayGroup(new)
        endRevokedWatches(new)
        return notReloaded
    }

    /// A watch lasts only as long as the permission that let it be made: a connection whose
    /// user is no longer in `relay.group` hears no more of the relay's pending count, and one
    /// no longer in `board.staffGroup` no more of the whole animal list.
    private func endRevokedWatches(_ settings: RuntimeSettings) {
        let relay = settings.relayGroupID, staff = settings.staffGroupID
        let relayGroup = settings.configuration.relay.group, staffGroup = settings.configuration.staffGroup
        let endedRelay = services.subscriptions.revoke(.relay, unless: { watch in relay.map(watch.subscriber.peer.isMember(of:)) ?? false },
                                                       message: "This connection's user is no longer in relay.group (\(relayGroup)): the watch has ended.")
        if endedRelay > 0 {
            logger.info("ended relay watches whose user is no longer in relay.group", metadata: ["watches": "\(endedRelay)", "relay.group": "\(relayGroup)"])
        }
        let endedStaff = services.subscriptions.revoke(.animals, unless: { watch in
            watch.animals?.standing != .staff || (staff.map(watch.subscriber.peer.isMember(of:)) ?? false)
        }, message: "This connection's user is no longer in board.staffGroup (\(staffGroup)): the watch has ended; watch again to see the list as the public does.")
        if endedStaff > 0 {
            logger.info("ended staff watches of the animal list whose user is no longer in board.staffGroup",
                        metadata: ["watches": "\(endedStaff)", "board.staffGroup": "\(staffGroup)"])
        }
    }

    func warnIfNoRelayGroup(_ settings: RuntimeSettings) {
        guard settings.relayGroupID == nil else { return }
        logger.warning("relay group not found: nobody may call relay.*", metadata: ["relay.group": "\(settings.configuration.relay.group)"])
    }
}
