import PetSpotProtocol

extension Routes {
    /// Every method of the protocol and its handler: the one place that names each handler.
    /// A test holds it to `ProtocolMethods.all`, one registration each.
    static func daemon(services: DaemonServices, faults: RequestFaults) -> Routes {
        var routes = Routes(faults: faults)
        let daemon = DaemonHandlers(services: services)
        routes.on(RPCDiscover.self, daemon.discover)
        routes.on(DaemonInfo.self, daemon.info)
        routes.on(SpeciesList.self, daemon.species)

        let flows = FlowHandlers(services: services)
        routes.on(FlowStart.self, flows.start)
        routes.on(FlowGet.self, flows.get)
        routes.on(FlowUpdate.self, flows.update)
        routes.on(FlowContinue.self, flows.continueStep)
        routes.on(FlowBack.self, flows.back)
        routes.on(FlowCancel.self, flows.cancel)
        routes.on(FlowRequestLocation.self, flows.requestLocation)
        routes.on(FlowDismissAlert.self, flows.dismissAlert)
        routes.on(FlowSubmit.self, flows.submit)

        let animals = AnimalsHandlers(services: services)
        routes.on(AnimalsList.self, animals.list)
        routes.on(AnimalsGet.self, animals.get)
        routes.on(AnimalsPhoto.self, animals.photo)
        routes.on(AnimalsLookup.self, animals.lookup)
        routes.on(AnimalsWatch.self, animals.watch)

        let location = LocationHandlers(services: services)
        routes.on(LocationCurrent.self, location.current)
        routes.on(LocationStatus.self, location.status)

        let reports = ReportsHandlers(services: services)
        routes.on(ReportsList.self, reports.list)
        routes.on(ReportsGet.self, reports.get)
        routes.on(ReportsClose.self, reports.close)
        routes.on(ReportsRenew.self, reports.renew)
        routes.on(ReportsAmend.self, reports.amend)
        routes.on(ReportsErase.self, reports.erase)
        routes.on(ReportsPhoto.self, reports.photo)

        let relay = RelayHandlers(services: services)
        routes.on(RelayClaim.self, relay.claim)
        routes.on(RelayAck.self, relay.ack)
        routes.on(RelayStatus.self, relay.status)
        let fleet = RelayFleetHandlers(services: services)
        routes.on(RelayFleet.self, fleet.fleet)
        routes.on(RelayFleetPut.self, fleet.put)

        let watches = WatchHandlers(services: services)
        routes.on(LocationWatch.self, watches.location)
        routes.on(FlowWatch.self, watches.flow)
        routes.on(ReportsWatch.self, watches.reports)
        routes.on(RelayWatch.self, watches.relay)
        routes.on(Unwatch.self, watches.unwatch)
        return routes
    }
}
