import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotViews

/// location.watch, flow.watch, reports.watch, relay.watch, unwatch: a watch is registered
/// before the state it answers with is read, so no change between the two is missed.
struct WatchHandlers: Sendable {
    let services: DaemonServices

    /// A new watch of `topic`, or `limitExceeded` naming `limits.maxSubscriptionsPerConnection`.
    private func watch(_ topic: WatchTopic, _ subscriber: Subscriber, _ context: RequestContext, locale: FlowLocale = .en) throws(RPCError) -> String {
        let max = context.limits.maxSubscriptionsPerConnection
        guard let id = services.subscriptions.watch(topic, by: subscriber, max: max, locale: locale) else {
            throw RPCError.limitExceeded("limits.maxSubscriptionsPerConnection", max: max,
                                         "a connection may hold at most \(max) watches; unwatch one first")
        }
        return id
    }

    func location(_ params: LocaleParams, _ context: RequestContext) throws(RPCError) -> Reply<LocationWatch.Result> {
        let locale = params.locale ?? .en
        let subscriber = try context.watcher()
        let id = try watch(.location, subscriber, context, locale: locale)
        let services = self.services
        // Off the event loop: the permission check may ask a directory service.
        return .later { () async -> LocationWatch.Result in
            let peer = subscriber.peer
            let view = services.location.now(for: LocationClient(uid: peer.uid, gid: peer.gid)).view(locale: locale)
            services.subscriptions.setFirstLocation(view, for: id, of: subscriber)
            return LocationWatch.Result(subscription: id, location: view)
        }
    }

    /// A flow that has ended answers as it ended, and its watch ends with one `flow.changed`
    /// saying so, as every watch of a flow does.
    func flow(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowWatch.Result> {
        let subscriber = try context.watcher()
        let id = try watch(.flow(params.flowId), subscriber, context)
        let flow: Flow
        do throws(RPCError) {
            flow = try registryCall { () throws(FlowRegistryError) in try services.registry.flow(params.flowId, owner: subscriber.peer.uid) }.flow
        } catch {
            _ = services.subscriptions.unwatch(id, by: subscriber)
            throw error
        }
        let view = flow.view(env: services.flowEnvironment())
        if flow.state != .active { services.subscriptions.flowChanged(view) }
        return .now(FlowWatch.Result(subscription: id, flow: view))
    }

    func reports(_ params: NoParams, _ context: RequestContext) throws(RPCError) -> Reply<ReportsWatch.Result> {
        let subscriber = try context.watcher()
        return .now(ReportsWatch.Result(subscription: try watch(.reports(subscriber.peer.uid), subscriber, context)))
    }

    func relay(_ params: NoParams, _ context: RequestContext) throws(RPCError) -> Reply<RelayWatch.Result> {
        let subscriber = try context.watcher()
        let id = try watch(.relay, subscriber, context)
        let services = self.services
        return .later { () async throws(RPCError) -> RelayWatch.Result in
            do throws(RPCError) {
                let counts = try await storeCall { () async throws(ReportStoreError) in try await services.store.deliveryCounts() }
                return RelayWatch.Result(subscription: id, pending: counts.pending)
            } catch {
                _ = services.subscriptions.unwatch(id, by: subscriber)
                throw error
            }
        }
    }

    func unwatch(_ params: Unwatch.Params, _ context: RequestContext) throws(RPCError) -> Reply<Unwatch.Result> {
        guard services.subscriptions.unwatch(params.subscription, by: try context.watcher()) else {
            throw RPCError(.invalidParams, "no watch \"\(params.subscription)\" on this connection", parameter: "subscription")
        }
        return .now(Unwatch.Result())
    }
}
