import PetSpotJSON
import PetSpotProtocol

/// The route table: each method's handler, registered once by its spec type, as Hummingbird
/// registers a closure per route. Name, visibility and the types of params and result come
/// from the spec (`RPCMethodSpec`); a route reads the params, runs the handler and writes its
/// answer line. There is no switch over the methods: `Responder` finds the route by name.
struct Routes: Sendable {
    /// One method's way from a request to its answer line.
    struct Route: Sendable {
        let visibility: MethodVisibility
        /// `id`: the request's, nil for a notification (nothing is sent back).
        let answer: @Sendable (_ params: JSONObject, _ id: JSONValue?, _ context: RequestContext) -> Answer
    }

    private var table: [String: Route] = [:]
    /// Where failures worth an operator's look are logged.
    let faults: RequestFaults

    init(faults: RequestFaults) {
        self.faults = faults
    }

    /// Registers `M`'s handler: the only place that names it. A method registered twice is a
    /// programming error.
    mutating func on<M: RPCMethodSpec>(_ method: M.Type,
                                       _ handler: @escaping @Sendable (M.Params, RequestContext) throws(RPCError) -> Reply<M.Result>)
    {
        precondition(table[M.name] == nil, "\(M.name) is registered twice")
        let faults = self.faults
        table[M.name] = Route(visibility: M.visibility) { params, id, context in
            var reader = RPCParams(params)
            let reply: Reply<M.Result>
            do throws(RPCError) {
                reply = try handler(try M.Params(&reader, bounds: context.bounds), context)
            } catch {
                faults.record(error, params: params, context)
                return .now(id.map { AnswerWriter.failure(id: $0, error) })
            }
            switch reply {
            case .now(let result): return .ready(id.map { .result(id: $0, JSONWriter.bytes(result.json)) })
            case .written(let result): return .ready(id.map { .result(id: $0, result) })
            case .later(let work):
                return .later {
                    do throws(RPCError) {
                        let result = try await work()
                        return id.map { AnswerWriter.success(id: $0, JSONWriter.bytes(result.json)) }
                    } catch {
                        faults.record(error, params: params, context)
                        return id.map { AnswerWriter.failure(id: $0, error) }
                    }
                }
            }
        }
    }

    /// The route of the method named `name`, if the caller may use it: to a caller outside
    /// `relay.group` the relay methods do not exist.
    func route(_ name: String, relay: Bool) -> Route? {
        guard let route = table[name], route.visibility == .everyone || relay else { return nil }
        return route
    }

    /// Every method with a handler.
    var names: [String] { Array(table.keys) }
}
