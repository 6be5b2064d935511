import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotViews

// location.watch, flow.watch, reports.watch, relay.watch, unwatch: a watch is registered
// before the state it answers with is read, so no change between the two is missed.
extension RequestRouter {
    /// The connection's watches; a request with no connection behind it cannot watch.
    func watcher(_ subscriber: Subscriber?) throws(RPCError) -> Subscriber {
        guard let subscriber else { throw RPCError(.internalError, "this request has no connection to send notifications to") }
        return subscriber
    }

    /// A new watch of `topic`, or `limitExceeded` naming `limits.maxSubscriptionsPerConnection`.
    private func watch(_ topic: WatchTopic, _ subscriber: Subscriber, locale: FlowLocale = .en) throws(RPCError) -> String {
        let max = services.limits.maxSubscriptionsPerConnection
        guard let id = services.subscriptions.watch(topic, by: subscriber, max: max, locale: locale) else {
            throw RPCError.limitExceeded("limits.maxSubscriptionsPerConnection", max: max,
                                         "a connection may hold at most \(max) watches; unwatch one first")
        }
        return id
    }

    func locationWatch(_ params: LocaleParams, _ subscriber: Subscriber) throws(RPCError) -> MethodReply<LocationWatch.Result> {
        let locale = params.locale ?? .en
        let id = try watch(.location, subscriber, locale: locale)
        let services = self.services
        // Off the event loop: the permission check may ask a directory service.
        return .work { () async -> LocationWatch.Result in
            let peer = subscriber.peer
            let view = services.location.now(for: LocationClient(uid: peer.uid, gid: peer.gid)).view(locale: locale)
            services.subscriptions.setFirstLocation(view, for: id, of: subscriber)
            return LocationWatch.Result(subscription: id, location: view)
        }
    }

    /// A flow that has ended answers as it ended, and its watch ends with one `flow.changed`
    /// saying so, as every watch of a flow does.
    func flowWatch(_ params: FlowIDParams, _ subscriber: Subscriber) throws(RPCError) -> MethodReply<FlowWatch.Result> {
        let id = try watch(.flow(params.flowId), subscriber)
        let flow: Flow
        do throws(RPCError) {
            flow = try registryCall { () throws(FlowRegistryError) in try services.registry.flow(params.flowId, owner: subscriber.peer.uid) }.flow
        } catch {
            _ = services.subscriptions.unwatch(id, by: subscriber)
            throw error
        }
        let view = flow.view(env: services.flowEnvironment())
        if flow.state != .active { services.subscriptions.flowChanged(view) }
        return .result(FlowWatch.Result(subscription: id, flow: view))
    }

    func reportsWatch(_ subscriber: Subscriber) throws(RPCError) -> MethodReply<ReportsWatch.Result> {
        .result(ReportsWatch.Result(subscription: try watch(.reports(subscriber.peer.uid), subscriber)))
    }

    func relayWatch(_ subscriber: Subscriber) throws(RPCError) -> MethodReply<RelayWatch.Result> {
        let id = try watch(.relay, subscriber)
        let services = self.services
        return .work { () async throws(RPCError) -> RelayWatch.Result in
            do throws(RPCError) {
                let counts = try await storeCall { () async throws(ReportStoreError) in try await services.store.deliveryCounts() }
                return RelayWatch.Result(subscription: id, pending: counts.pending)
            } catch {
                _ = services.subscriptions.unwatch(id, by: subscriber)
                throw error
            }
        }
    }

    func unwatch(_ params: Unwatch.Params, _ subscriber: Subscriber) throws(RPCError) -> MethodReply<Unwatch.Result> {
        guard services.subscriptions.unwatch(params.subscription, by: subscriber) else {
            throw RPCError(.invalidParams, "no watch \"\(params.subscription)\" on this connection", parameter: "subscription")
        }
        return .result(Unwatch.Result())
    }

    /// `reply`, whose flow's watches are told of it once it is made. Two connections may
    /// change one flow at once and publish in either order: each watch is given the flow as
    /// it is when published, with its revision, so that a late older view is skipped.
    func published<R: FlowResult>(_ reply: MethodReply<R>, _ peer: Peer) -> MethodReply<R> {
        let services = self.services
        let publish: @Sendable (Result<Answer<R>, RPCError>) -> Void = { result in
            guard case .success(.value(let answer)) = result else { return }
            let flow = answer.flow
            guard services.subscriptions.isWatched(.flow(flow.id)) else { return }
            guard case .active = flow.state, let current = try? services.registry.flow(flow.id, owner: peer.uid) else {
                services.subscriptions.flowChanged(flow)
                return
            }
            services.subscriptions.flowChanged(current.flow.view(env: services.flowEnvironment()), revision: current.revision)
        }
        switch reply {
        case .now(let result):
            publish(result)
            return reply
        case .later(let work):
            return .later {
                let result = await work()
                publish(result)
                return result
            }
        }
    }
}
