import NIOConcurrencyHelpers

/// What the daemon holds in memory on behalf of clients: request lines still arriving, lines
/// waiting for their turn or being answered, answers not yet sent and notifications waiting to
/// be. All of it counts against one budget for the daemon (`limits.maxBufferedBytes`) and a
/// share for each peer uid (`limits.maxBufferedBytesPerUser`), so that one user's unfinished
/// lines cannot take the memory of a small box, nor every other user's room.
///
/// The first `step` bytes each connection holds are its own (at most `limits.maxConnections` ×
/// 64 KiB, 64 MiB with the defaults): a client sending one request of under 64 KiB at a time,
/// and reading its answers, never touches the lock nor meets the limits. Past them a connection
/// takes room in whole steps (`ClientMemoryAccount`).
final class ClientMemoryBudget: Sendable {
    /// Each connection's own allowance, and the unit room is taken and given back in.
    static let step = 64 * 1024

    struct Limits: Sendable, Equatable {
        var total: Int
        var perUser: Int
    }

    /// Why room was refused: the setting that was reached, and its value.
    struct Refusal: Sendable, Equatable {
        static let perUserSetting = "limits.maxBufferedBytesPerUser"
        static let totalSetting = "limits.maxBufferedBytes"

        let setting: String
        let limit: Int

        /// What the client is told of a line refused.
        var message: String {
            "the daemon already holds \(limit) bytes of lines and answers for \(whose); the line was skipped up to its newline, send it again once earlier requests are answered"
        }

        /// What the client is told of a request of a batch left unrun.
        var batchMessage: String {
            "the daemon already holds \(limit) bytes of lines and answers for \(whose); this request of the batch was not run, send it again once the answers before it are read"
        }

        private var whose: String { setting == Self.perUserSetting ? "this user" : "all clients" }
    }

    private struct State {
        var limits: Limits
        /// Room counted against `limits.total`: each user's up to its share.
        var used = 0
        var perUser: [UInt32: Int] = [:]
        /// Everything held for all users, answers forced past a share too, and the most held
        /// since `fellFromPeak` last answered true.
        var heldByAll = 0
        var peak = 0

        /// What a user holding `held` counts against the total: answers forced past its share
        /// stay its own, and never take the room of other users.
        func counted(_ held: Int) -> Int { min(held, limits.perUser) }

        mutating func set(_ uid: UInt32, from held: Int, to now: Int) {
            used += counted(now) - counted(held)
            perUser[uid] = now > 0 ? now : nil
            heldByAll += now - held
            peak = max(peak, heldByAll)
        }
    }

    private let state: NIOLockedValueBox<State>

    init(limits: Limits) {
        state = NIOLockedValueBox(State(limits: limits))
    }

    /// A reload: room already held stays held; new room is taken against the new limits.
    func update(limits: Limits) {
        state.withLockedValue { state in
            state.limits = limits
            state.used = state.perUser.values.reduce(0) { $0 + state.counted($1) }
        }
    }

    /// Takes `bytes` more for `uid`, or refuses them whole. `force` takes them anyway (an
    /// answer already made is sent whatever it costs): later lines of that user are then
    /// refused, and other users' room is untouched.
    func take(_ bytes: Int, for uid: UInt32, force: Bool = false) -> Refusal? {
        state.withLockedValue { state -> Refusal? in
            let held = state.perUser[uid, default: 0]
            if !force {
                if held + bytes > state.limits.perUser {
                    return Refusal(setting: Refusal.perUserSetting, limit: state.limits.perUser)
                }
                if state.used + bytes > state.limits.total {
                    return Refusal(setting: Refusal.totalSetting, limit: state.limits.total)
                }
            }
            state.set(uid, from: held, to: held + bytes)
            return nil
        }
    }

    func giveBack(_ bytes: Int, for uid: UInt32) {
        guard bytes > 0 else { return }
        state.withLockedValue { state in
            let held = state.perUser[uid, default: 0]
            state.set(uid, from: held, to: max(0, held - bytes))
        }
    }

    /// Why `uid` has no room now, or nil: it holds its share or more, or all clients hold the
    /// daemon's budget. What makes many answers at once (a batch) asks before each one.
    func noRoom(for uid: UInt32) -> Refusal? {
        state.withLockedValue { state -> Refusal? in
            if state.perUser[uid, default: 0] >= state.limits.perUser {
                return Refusal(setting: Refusal.perUserSetting, limit: state.limits.perUser)
            }
            if state.used >= state.limits.total {
                return Refusal(setting: Refusal.totalSetting, limit: state.limits.total)
            }
            return nil
        }
    }

    /// Whether what clients hold has fallen to half a peak of at least `minimum` bytes since
    /// this last answered true: then malloc keeps much freed memory it may give back.
    func fellFromPeak(minimum: Int) -> Bool {
        state.withLockedValue { state in
            guard state.peak >= minimum, state.heldByAll <= state.peak / 2 else { return false }
            state.peak = state.heldByAll
            return true
        }
    }

    /// Whether `uid` holds more than its share (answers forced past it).
    func isOverShare(_ uid: UInt32) -> Bool {
        state.withLockedValue { $0.perUser[uid, default: 0] > $0.limits.perUser }
    }

    /// Bytes held for all clients, and for `uid`.
    var used: Int { state.withLockedValue { $0.used } }
    func used(by uid: UInt32) -> Int { state.withLockedValue { $0.perUser[uid, default: 0] } }
}

/// One connection's part of the budget. Lives on the connection's event loop: its line decoder
/// and its handler share it.
final class ClientMemoryAccount {
    let budget: ClientMemoryBudget
    let uid: UInt32
    /// The answers of a batch of this connection while they are made, counted until the batch is
    /// handed to the channel (`outputAdded`).
    let batches: BatchRoom
    /// Bytes of the line still arriving (the decoder's buffer).
    private(set) var unfinished = 0
    /// Bytes of whole lines held: waiting or being answered.
    private(set) var held = 0
    /// Bytes of answers the channel has not yet sent, and of notifications waiting to be written.
    private(set) var output = 0
    /// Room taken from the budget: whole steps, covering all three past the allowance.
    private(set) var taken = 0
    /// Closed: what comes back later (an answer sent after the close) no longer counts.
    private var closed = false
    /// This connection has output waiting while its user holds more than its share: it should
    /// take no new request until that output has gone (`ConnectionHandler`).
    private(set) var overShare = false

    init(budget: ClientMemoryBudget, uid: UInt32) {
        self.budget = budget
        self.uid = uid
        self.batches = BatchRoom(budget: budget, uid: uid)
    }

    /// The line still arriving is now `bytes` long; nil when it fits.
    func unfinishedLine(_ bytes: Int) -> ClientMemoryBudget.Refusal? {
        guard !closed else { return nil }
        let before = unfinished
        unfinished = bytes
        if let refusal = fit() {
            unfinished = before
            return refusal
        }
        return nil
    }

    /// A whole line of `bytes` is handed on, and its unfinished part ends; refused, the line is
    /// dropped.
    func lineCompleted(_ bytes: Int) -> ClientMemoryBudget.Refusal? {
        guard !closed else { return nil }
        let heldBefore = held
        unfinished = 0
        held += bytes
        if let refusal = fit() {
            held = heldBefore
            shrink()
            return refusal
        }
        return nil
    }

    /// What waits to go out to the client is now `bytes`: counted whatever it costs, since an
    /// answer already made is sent; the user's later lines are refused while it waits.
    func outputWaiting(_ bytes: Int) {
        guard !closed else { return }
        if bytes != output {
            let grew = bytes > output
            output = bytes
            if grew { forceFit() } else { shrink() }
        }
        // Asked again while output waits: another connection of the user may have given room back.
        overShare = output > 0 && budget.isOverShare(uid)
    }

    /// An answer of `bytes` was handed to the channel: it waits until the next count
    /// (`outputWaiting`). Touches the budget only when it needs another step. A batch counted
    /// while it was made counts here from now on.
    func outputAdded(_ bytes: Int) {
        guard !closed else { return }
        output += bytes
        if forceFit() { overShare = budget.isOverShare(uid) }
        batches.handedOver()
    }

    /// A line was answered.
    func released(_ bytes: Int) {
        guard !closed else { return }
        held -= bytes
        shrink()
    }

    /// The line still arriving was dropped (too long, refused, or the connection closed).
    func unfinishedDropped() {
        unfinished = 0
        shrink()
    }

    /// The connection is gone: everything goes back.
    func close() {
        guard !closed else { return }
        closed = true
        batches.close()
        budget.giveBack(taken, for: uid)
        (unfinished, held, output, taken) = (0, 0, 0, 0)
        overShare = false
    }

    private func fit() -> ClientMemoryBudget.Refusal? {
        let needed = Self.charge(unfinished + held + output)
        guard needed > taken else { return nil }
        if let refusal = budget.take(needed - taken, for: uid) { return refusal }
        taken = needed
        return nil
    }

    /// Takes the room needed whatever it costs; answers whether it took any.
    @discardableResult
    private func forceFit() -> Bool {
        let needed = Self.charge(unfinished + held + output)
        guard needed > taken else { return false }
        _ = budget.take(needed - taken, for: uid, force: true)
        taken = needed
        return true
    }

    /// Gives back whole steps no longer needed.
    private func shrink() {
        let needed = Self.charge(unfinished + held + output)
        guard taken > needed else { return }
        budget.giveBack(taken - needed, for: uid)
        taken = needed
    }

    /// The room `bytes` take from the budget: whole steps past the connection's allowance.
    static func charge(_ bytes: Int) -> Int {
        max(0, roundedUp(bytes) - ClientMemoryBudget.step)
    }

    private static func roundedUp(_ bytes: Int) -> Int {
        (bytes + ClientMemoryBudget.step - 1) / ClientMemoryBudget.step * ClientMemoryBudget.step
    }
}
