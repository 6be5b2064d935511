import Foundation
import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
@testable import PetSpotServer
import Synchronization
import Testing

@Suite("Flow registry")
struct FlowRegistryTests {
    func registry(perUser: Int = 50, total: Int = 100, idle: Int = 60, clock: ManualTime = ManualTime()) -> FlowRegistry {
        FlowRegistry(limits: .registry(maxFlowsPerUser: perUser, maxFlows: total, idleTimeoutSeconds: idle), clock: .manual(clock))
    }

    @Test("a flow belongs to its owner: to anyone else it does not exist")
    func ownership() throws {
        let flows = registry()
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1000)
        #expect(try flows.withFlow("a", owner: 1000) { $0.id } == "a")
        #expect(throws: FlowRegistry.notFound("a")) { try flows.withFlow("a", owner: 1001) { _ in } }
        #expect(throws: FlowRegistry.notFound("b")) { try flows.withFlow("b", owner: 1000) { _ in } }
    }

    @Test("idle expiry at its edge: exactly the timeout is alive, a nanosecond more is gone")
    func expiryEdge() throws {
        let clock = ManualTime()
        let flows = registry(idle: 60, clock: clock)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        clock.advance(by: .seconds(60))
        _ = try flows.withFlow("a", owner: 1) { _ in }  // touching it restarts the idle time
        clock.advance(by: .seconds(60))
        #expect(flows.expireIdle() == 0)
        clock.advance(by: .nanoseconds(1))
        #expect(throws: FlowRegistry.notFound("a")) { try flows.withFlow("a", owner: 1) { _ in } }
        #expect(flows.count == 0)
    }

    @Test("a written view is given again until the flow changes or the settings do; asking for it keeps the flow alive")
    func keptView() throws {
        let clock = ManualTime()
        let flows = registry(idle: 60, clock: clock)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        var renders = 0
        func view(_ generation: UInt64) throws -> String {
            String(decoding: try flows.renderedView("a", owner: 1, generation: generation) { flow in
                renders += 1
                return (Array("\(flow.step) \(renders)".utf8), generation)
            }, as: UTF8.self)
        }
        #expect(try view(0) == "chip 1")
        #expect(try view(0) == "chip 1")
        _ = try flows.withFlow("a", owner: 1) { _ in }  // a call that may change the flow
        #expect(try view(0) == "chip 2")
        #expect(try view(1) == "chip 3")  // the settings were reloaded
        #expect(try view(1) == "chip 3")
        #expect(throws: FlowRegistry.notFound("a")) { try flows.renderedView("a", owner: 2, generation: 1) { _ in ([], 1) } }
        clock.advance(by: .seconds(60))
        _ = try view(1)
        clock.advance(by: .seconds(60))
        #expect(flows.expireIdle() == 0)
        clock.advance(by: .nanoseconds(1))
        #expect(throws: FlowRegistry.notFound("a")) { try view(1) }
    }

    @Test("a flow found idle by flow.get is gone: its kept view freed and its owner's place given back")
    func idleFoundByView() throws {
        let clock = ManualTime()
        let flows = registry(perUser: 1, idle: 60, clock: clock)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        _ = try flows.renderedView("a", owner: 1, generation: 0) { _ in (Array("view".utf8), 0) }
        #expect(flows.keptViewBytes == 4)
        clock.advance(by: .seconds(60) + .nanoseconds(1))
        #expect(throws: FlowRegistry.notFound("a")) { try flows.renderedView("a", owner: 1, generation: 0) { _ in ([], 0) } }
        #expect(flows.count == 0)
        #expect(flows.keptViewBytes == 0)
        _ = try flows.start(Flow(id: "b", locale: .en), owner: 1)
    }

    @Test("kept views fit their budget exactly: one byte past it is written again each time; a change or an end frees it")
    func keptViewBudget() throws {
        let flows = FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxKeptViewBytes: 10),
                                 clock: .manual(ManualTime()))
        for id in ["a", "b", "c"] { _ = try flows.start(Flow(id: id, locale: .en), owner: 1) }
        var renders: [String: Int] = [:]
        func view(_ id: String, bytes: Int) throws {
            _ = try flows.renderedView(id, owner: 1, generation: 0) { _ in
                renders[id, default: 0] += 1
                return ([UInt8](repeating: 0x61, count: bytes), 0)
            }
        }
        try view("a", bytes: 6)
        try view("a", bytes: 6)
        #expect(renders["a"] == 1)
        try view("b", bytes: 4)  // 6 + 4: exactly the budget
        try view("b", bytes: 4)
        #expect(renders["b"] == 1)
        #expect(flows.keptViewBytes == 10)
        try view("c", bytes: 1)  // one byte past it: not kept
        try view("c", bytes: 1)
        #expect(renders["c"] == 2)
        _ = try flows.withFlow("a", owner: 1) { _ in }  // a change drops a's view
        #expect(flows.keptViewBytes == 4)
        try view("c", bytes: 1)
        try view("c", bytes: 1)
        #expect(renders["c"] == 3)
        #expect(flows.keptViewBytes == 5)
        _ = try flows.withFlow("b", owner: 1) { (flow) throws(FlowError) in try flow.cancel() }  // an end drops b's
        #expect(flows.keptViewBytes == 1)
    }

    @Test("a view is written outside the lock, and one written while the flow changed is not kept")
    func viewDuringChange() throws {
        let flows = registry()
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        var renders = 0
        let first = try flows.renderedView("a", owner: 1, generation: 0) { _ in
            renders += 1
            // The lock is free meanwhile (held, this would deadlock): another request changes the flow.
            _ = try? flows.withFlow("a", owner: 1) { _ in }
            return (Array("\(renders)".utf8), 0)
        }
        #expect(first == Array("1".utf8))
        let second = try flows.renderedView("a", owner: 1, generation: 0) { _ in
            renders += 1
            return (Array("\(renders)".utf8), 0)
        }
        #expect(second == Array("2".utf8))
    }

    @Test("the sweep drops only idle flows")
    func sweep() throws {
        let clock = ManualTime()
        let flows = registry(idle: 10, clock: clock)
        _ = try flows.start(Flow(id: "old", locale: .en), owner: 1)
        clock.advance(by: .seconds(6))
        _ = try flows.start(Flow(id: "new", locale: .en), owner: 1)
        clock.advance(by: .seconds(6))
        #expect(flows.expireIdle() == 1)
        #expect(try flows.withFlow("new", owner: 1) { $0.id } == "new")
    }

    @Test("per-user limit counts active flows only; cancelling frees a place")
    func perUserLimit() throws {
        let flows = registry(perUser: 2)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        _ = try flows.start(Flow(id: "b", locale: .en), owner: 1)
        _ = try flows.start(Flow(id: "c", locale: .en), owner: 2)  // another user has their own allowance
        #expect {
            _ = try flows.start(Flow(id: "d", locale: .en), owner: 1)
        } throws: { error in
            if case .limitReached("limits.maxFlowsPerUser", 2, _) = error as? FlowRegistryError { true } else { false }
        }
        try flows.withFlow("a", owner: 1) { (flow) throws(FlowError) in try flow.cancel() }
        _ = try flows.start(Flow(id: "d", locale: .en), owner: 1)
    }

    @Test("the total limit first makes room by dropping expired flows")
    func totalLimit() throws {
        let clock = ManualTime()
        let flows = registry(total: 2, idle: 10, clock: clock)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        _ = try flows.start(Flow(id: "b", locale: .en), owner: 2)
        #expect {
            _ = try flows.start(Flow(id: "c", locale: .en), owner: 3)
        } throws: { error in
            if case .limitReached("limits.maxFlows", 2, _) = error as? FlowRegistryError { true } else { false }
        }
        clock.advance(by: .seconds(11))
        _ = try flows.start(Flow(id: "c", locale: .en), owner: 3)
        #expect(flows.count == 1)
    }

    @Test("completed flows hold no place in limits.maxFlows or a user's limit: one user filing in a loop locks no one out")
    func completedFlowsFreeTheirPlace() throws {
        let flows = registry(perUser: 2, total: 2, idle: 1_800)
        for n in 0..<100 {
            _ = try flows.start(Flow(id: "f\(n)", locale: .en), owner: 1)
            try flows.withFlow("f\(n)", owner: 1) { (flow) throws(FlowError) in flow.complete(reportID: "r\(n)") }
        }
        #expect(flows.activeCount == 0)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        _ = try flows.start(Flow(id: "b", locale: .en), owner: 2)
        #expect(throws: FlowRegistryError.self) { _ = try flows.start(Flow(id: "c", locale: .en), owner: 3) }
        // A completed flow still answers with its report's id.
        #expect(try flows.withFlow("f99", owner: 1) { $0.reportID } == "r99")
    }

    @Test("completed flows kept: at most limits.maxCompletedFlows, the oldest goes first; 0 keeps none; a lowered limit applies at once")
    func completedFlowsBounded() throws {
        let clock = ManualTime()
        let flows = FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxCompletedFlows: 3), clock: .manual(clock))
        func file(_ id: String) throws {
            _ = try flows.start(Flow(id: id, locale: .en), owner: 1)
            try flows.withFlow(id, owner: 1) { (flow) throws(FlowError) in flow.complete(reportID: "r-" + id) }
        }
        for id in ["a", "b", "c"] { try file(id) }
        #expect(flows.completedCount == 3)
        try file("d")
        #expect(flows.completedCount == 3)
        #expect(throws: FlowRegistry.notFound("a")) { try flows.withFlow("a", owner: 1) { _ in } }
        #expect(try flows.withFlow("b", owner: 1) { $0.reportID } == "r-b")
        // One that expired is not counted twice, nor does its id hold a place.
        clock.advance(by: .seconds(61))
        #expect(flows.expireIdle() == 3)
        #expect(flows.completedCount == 0)
        for id in ["e", "f", "g", "h"] { try file(id) }
        #expect(flows.completedCount == 3)
        #expect(try flows.withFlow("f", owner: 1) { $0.reportID } == "r-f")
        #expect(throws: FlowRegistry.notFound("e")) { try flows.withFlow("e", owner: 1) { _ in } }
        flows.update(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxCompletedFlows: 1))
        #expect(flows.completedCount == 1)
        #expect(try flows.withFlow("h", owner: 1) { $0.reportID } == "r-h")
        flows.update(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxCompletedFlows: 0))
        #expect(flows.count == 0)
        try file("i")
        #expect(flows.count == 0)
    }

    @Test("a full table is swept at most once a second")
    func sweepRate() throws {
        let clock = ManualTime()
        let flows = registry(total: 1, idle: 10, clock: clock)
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        clock.advance(by: .milliseconds(9_500))
        // Full: a sweep runs now, but "a" is not idle long enough yet.
        #expect(throws: FlowRegistryError.self) { _ = try flows.start(Flow(id: "b", locale: .en), owner: 2) }
        clock.advance(by: .milliseconds(600))
        // "a" has expired, but the last sweep was under a second ago: still refused.
        #expect(throws: FlowRegistryError.self) { _ = try flows.start(Flow(id: "b", locale: .en), owner: 2) }
        clock.advance(by: .milliseconds(400))
        _ = try flows.start(Flow(id: "b", locale: .en), owner: 2)
        #expect(flows.count == 1)
    }

    @Test("a cancelled flow is gone at once")
    func cancelRemoves() throws {
        let flows = registry()
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        try flows.withFlow("a", owner: 1) { (flow) throws(FlowError) in try flow.back() }
        #expect(flows.count == 0)
    }

    @Test("a rule's refusal comes out as the flow's own error and changes nothing")
    func flowErrors() throws {
        let flows = registry()
        _ = try flows.start(Flow(id: "a", locale: .en), owner: 1)
        #expect {
            try flows.withFlow("a", owner: 1) { (flow) throws(FlowError) in try flow.checkSubmittable() }
        } throws: { error in
            if case .flow(.wrongStep) = error as? FlowRegistryError { true } else { false }
        }
        #expect(try flows.withFlow("a", owner: 1) { $0.step } == .chip)
    }
}

@Suite("Photo budget")
struct PhotoBudgetTests {
    static let env = FlowEnvironment(today: CalendarDate(year: 2026, month: 11, day: 21)!,
                                     species: try! SpeciesCatalog(species: [Species(id: "dog", names: [.en: "Dog", .pl: "Pies"])]))

    func photoUpdate(_ size: Int) -> JSONObject {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: size - 8)
        return ["photo": ["data": .string(Data(png).base64EncodedString())]]
    }

    func flowOnPhotoStep(_ registry: FlowRegistry, id: String, owner: UInt32) throws {
        _ = try registry.start(Flow(id: id, locale: .en), owner: owner)
        _ = try registry.withFlow(id, owner: owner) { (flow) throws(FlowError) in try flow.continueStep(env: Self.env) }
    }

    /// `flow.update` with a photo of `bytes` on the flow `id`.
    func putPhoto(_ registry: FlowRegistry, _ id: String, owner: UInt32, bytes: Int) throws {
        try registry.withFlow(id, owner: owner) { (flow) throws(FlowError) in try flow.update(photoUpdate(bytes), env: Self.env) }
    }

    /// Whether an error is the registry's refusal naming `setting` at `max`.
    func refusal(_ setting: String, _ max: Int) -> (any Error) -> Bool {
        { error in if case .limitReached(setting, max, _) = error as? FlowRegistryError { true } else { false } }
    }

    @Test("photos of all flows fit the budget exactly; one byte more is refused and changes nothing; leaving frees it")
    func budget() throws {
        let registry = FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxSpooledPhotoBytes: 300),
                                    clock: .manual(ManualTime()))
        try flowOnPhotoStep(registry, id: "a", owner: 1)
        try flowOnPhotoStep(registry, id: "b", owner: 2)
        try putPhoto(registry, "a", owner: 1, bytes: 200)
        try putPhoto(registry, "b", owner: 2, bytes: 100)
        #expect(registry.photoBytes == 300)
        #expect(performing: { try putPhoto(registry, "b", owner: 2, bytes: 101) }, throws: refusal("limits.maxSpooledPhotoBytes", 300))
        #expect(try registry.withFlow("b", owner: 2) { $0.values.photo?.byteCount } == 100)
        // A smaller photo always fits; cancelling gives the bytes back.
        try putPhoto(registry, "a", owner: 1, bytes: 50)
        #expect(registry.photoBytes == 150)
        try registry.withFlow("a", owner: 1) { (flow) throws(FlowError) in try flow.cancel() }
        #expect(registry.photoBytes == 100)
        try putPhoto(registry, "b", owner: 2, bytes: 300)
        #expect(registry.photoBytes == 300)
    }

    @Test("one user's photos fit its share exactly; one byte more is refused while another user still fits; expiry and completion count")
    func perUserShare() throws {
        let time = ManualTime()
        let registry = FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxSpooledPhotoBytes: 1_000,
                                                  maxSpooledPhotoBytesPerUser: 300),
                                    clock: .manual(time))
        for (id, owner) in [("a", UInt32(1)), ("b", 1), ("c", 2)] { try flowOnPhotoStep(registry, id: id, owner: owner) }
        try putPhoto(registry, "a", owner: 1, bytes: 200)
        try putPhoto(registry, "b", owner: 1, bytes: 100)
        #expect(performing: { try putPhoto(registry, "b", owner: 1, bytes: 101) }, throws: refusal("limits.maxSpooledPhotoBytesPerUser", 300))
        #expect(try registry.withFlow("b", owner: 1) { $0.values.photo?.byteCount } == 100)
        // Another user has a share of its own.
        try putPhoto(registry, "c", owner: 2, bytes: 300)
        #expect(registry.photoBytes == 600)
        // An expired flow gives its user's bytes back.
        time.advance(by: .seconds(61))
        #expect(registry.expireIdle() == 3)
        try flowOnPhotoStep(registry, id: "d", owner: 1)
        try putPhoto(registry, "d", owner: 1, bytes: 300)
        #expect(registry.photoBytes == 300)
    }

    @Test("a reservation is checked like the photo it holds room for, counts until taken or given back, and is refused for a flow that would refuse the update")
    func reservation() throws {
        let registry = FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60, maxSpooledPhotoBytes: 1_000,
                                                  maxSpooledPhotoBytesPerUser: 300),
                                    clock: .manual(ManualTime()))
        for (id, owner) in [("a", UInt32(1)), ("b", 1), ("c", 2)] { try flowOnPhotoStep(registry, id: id, owner: owner) }
        _ = try registry.start(Flow(id: "on-step-1", locale: .en), owner: 1)
        let update = PreparedUpdate(photoUpdate(200), env: Self.env)
        let check: (Flow) throws(FlowError) -> Void = { (flow) throws(FlowError) in try flow.checkUpdate(update) }

        // Nothing is reserved for a flow that is not the caller's, or that would refuse the update.
        #expect(throws: FlowRegistryError.flowNotFound(id: "nope")) { try registry.reservePhoto("nope", owner: 1, bytes: 200, check: check) }
        #expect(throws: FlowRegistryError.flowNotFound(id: "c")) { try registry.reservePhoto("c", owner: 1, bytes: 200, check: check) }
        #expect { try registry.reservePhoto("on-step-1", owner: 1, bytes: 200, check: check) } throws: { error in
            if case .flow(.wrongStep) = error as? FlowRegistryError { true } else { false }
        }
        #expect(registry.photoBytes == 0)

        // Held while the photo is on its way: a second photo of the same user no longer fits its share.
        let room = try registry.reservePhoto("a", owner: 1, bytes: 200, check: check)
        #expect(registry.photoBytes == 200)
        #expect(performing: { try registry.reservePhoto("b", owner: 1, bytes: 101, check: check) }, throws: refusal("limits.maxSpooledPhotoBytesPerUser", 300))
        let small = try registry.reservePhoto("b", owner: 1, bytes: 100, check: check)
        // Given back when its photo never came; taken by the update that stores it.
        registry.giveBack(small)
        #expect(registry.photoBytes == 200)
        try registry.withFlow("a", owner: 1, taking: room) { (flow) throws(FlowError) in try flow.update(update, env: Self.env) }
        #expect(registry.photoBytes == 200)
        // Taken even when the flow refuses: the reservation never outlives its call.
        let refused = try registry.reservePhoto("b", owner: 1, bytes: 100, check: check)
        #expect(throws: FlowRegistryError.self) {
            try registry.withFlow("b", owner: 1, taking: refused) { (_) throws(FlowError) in throw .wrongStep(message: "refused") }
        }
        #expect(registry.photoBytes == 200)
        // A photo that replaces the flow's own is checked for what the flow will hold.
        let replacing = try registry.reservePhoto("a", owner: 1, bytes: 300, check: check)
        registry.giveBack(replacing)
        #expect(registry.photoBytes == 200)
    }
}

extension DaemonConfiguration.Limits {
    /// The limits a registry under test reads; the rest of what it reads is unbounded.
    static func registry(maxFlowsPerUser: Int, maxFlows: Int, idleTimeoutSeconds: Int, maxSpooledPhotoBytes: Int = .max,
                         maxSpooledPhotoBytesPerUser: Int = .max, maxKeptViewBytes: Int = .max, maxCompletedFlows: Int = .max) -> Self
    {
        var limits = Self()
        limits.maxFlowsPerUser = maxFlowsPerUser
        limits.maxFlows = maxFlows
        limits.flowIdleTimeoutSeconds = idleTimeoutSeconds
        limits.maxSpooledPhotoBytes = maxSpooledPhotoBytes
        limits.maxSpooledPhotoBytesPerUser = maxSpooledPhotoBytesPerUser
        limits.maxKeptViewBytes = maxKeptViewBytes
        limits.maxCompletedFlows = maxCompletedFlows
        return limits
    }
}
