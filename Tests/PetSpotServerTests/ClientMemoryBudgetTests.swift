import PetSpotJSON
import Testing

@testable import PetSpotServer

@Suite("The memory held for clients: per user and for the daemon")
struct ClientMemoryBudgetTests {
    static let step = ClientMemoryBudget.step
    static let mebibyte = 1024 * 1024

    static let charges: [(bytes: Int, charged: Int)] = [
        (0, 0), (1, 0), (step, 0), (step + 1, step), (2 * step, step), (2 * step + 1, 2 * step), (10 * mebibyte, 10 * mebibyte - step),
    ]

    @Test("what bytes held cost: nothing within a connection's allowance, then whole steps", arguments: charges)
    func charge(bytes: Int, charged: Int) {
        #expect(ClientMemoryAccount.charge(bytes) == charged)
    }

    @Test("small lines never touch the budget")
    func smallLines() {
        let budget = ClientMemoryBudget(limits: .init(total: Self.mebibyte, perUser: Self.mebibyte))
        let account = ClientMemoryAccount(budget: budget, uid: 1000)
        for _ in 0..<1000 {
            #expect(account.unfinishedLine(100) == nil)
            #expect(account.lineCompleted(200) == nil)
            account.released(200)
        }
        #expect(budget.used == 0)
    }

    @Test("a user's share: past it a line is refused, another user still has room; what closes comes back")
    func perUserShare() {
        let budget = ClientMemoryBudget(limits: .init(total: 8 * Self.mebibyte, perUser: 2 * Self.mebibyte))
        let first = ClientMemoryAccount(budget: budget, uid: 1000)
        let second = ClientMemoryAccount(budget: budget, uid: 1000)
        let other = ClientMemoryAccount(budget: budget, uid: 1001)
        #expect(first.unfinishedLine(Self.mebibyte + Self.step) == nil)
        #expect(budget.used(by: 1000) == Self.mebibyte)
        #expect(second.unfinishedLine(Self.mebibyte + Self.step) == nil)
        #expect(budget.used(by: 1000) == 2 * Self.mebibyte)
        #expect(second.unfinishedLine(Self.mebibyte + Self.step + 1) == .init(setting: "limits.maxBufferedBytesPerUser", limit: 2 * Self.mebibyte))
        // Refused, the line's part already held stays counted until the decoder drops it.
        #expect(second.unfinished == Self.mebibyte + Self.step)
        second.unfinishedDropped()
        #expect(budget.used(by: 1000) == Self.mebibyte)
        #expect(other.unfinishedLine(2 * Self.mebibyte + Self.step) == nil)
        first.close()
        other.close()
        #expect(budget.used == 0)
        // After the close nothing more counts (an answer sent late comes back).
        first.released(Self.mebibyte)
        #expect(budget.used == 0)
    }

    @Test("the daemon's budget: past it a line is refused whoever sends it")
    func total() {
        let budget = ClientMemoryBudget(limits: .init(total: 2 * Self.mebibyte, perUser: 2 * Self.mebibyte))
        let one = ClientMemoryAccount(budget: budget, uid: 1)
        let two = ClientMemoryAccount(budget: budget, uid: 2)
        #expect(one.unfinishedLine(Self.mebibyte + Self.step) == nil)
        #expect(two.unfinishedLine(Self.mebibyte + Self.step) == nil)
        #expect(two.lineCompleted(Self.mebibyte + 2 * Self.step) == .init(setting: "limits.maxBufferedBytes", limit: 2 * Self.mebibyte))
        // The refused line is gone, nothing of it is held.
        #expect(two.unfinished == 0 && two.held == 0)
        #expect(budget.used == Self.mebibyte)
    }

    @Test("a whole line stays counted until it is answered; waiting output counts whatever the budget")
    func heldUntilAnswered() {
        let budget = ClientMemoryBudget(limits: .init(total: 4 * Self.mebibyte, perUser: 4 * Self.mebibyte))
        let account = ClientMemoryAccount(budget: budget, uid: 7)
        #expect(account.unfinishedLine(Self.mebibyte) == nil)
        #expect(account.lineCompleted(Self.mebibyte + 10) == nil)
        #expect(account.unfinished == 0 && account.held == Self.mebibyte + 10)
        account.outputWaiting(8 * Self.mebibyte)
        #expect(budget.used(by: 7) > 4 * Self.mebibyte, "an answer already made is counted, past the share")
        #expect(account.unfinishedLine(2 * Self.step) != nil, "while it is out, new lines are refused")
        account.outputWaiting(Self.step)
        #expect(account.output == Self.step && budget.used(by: 7) == Self.mebibyte + Self.step, "what has gone out is given back")
        account.outputWaiting(0)
        account.released(Self.mebibyte + 10)
        #expect(budget.used == 0)
    }

    @Test("a reload changes the limits for room taken from then on")
    func reload() {
        let budget = ClientMemoryBudget(limits: .init(total: 4 * Self.mebibyte, perUser: 4 * Self.mebibyte))
        let account = ClientMemoryAccount(budget: budget, uid: 7)
        #expect(account.unfinishedLine(2 * Self.mebibyte) == nil)
        budget.update(limits: .init(total: Self.mebibyte, perUser: Self.mebibyte))
        #expect(budget.used(by: 7) == 2 * Self.mebibyte - Self.step, "room already held stays held")
        #expect(account.unfinishedLine(2 * Self.mebibyte + Self.step) != nil)
    }

    @Test("answers forced past a user's share are that user's alone: other users keep their room")
    func forcedAnswersStayWithTheirUser() {
        let budget = ClientMemoryBudget(limits: .init(total: 4 * Self.mebibyte, perUser: 2 * Self.mebibyte))
        let greedy = ClientMemoryAccount(budget: budget, uid: 1)
        for sent in 1...8 { greedy.outputWaiting(sent * Self.mebibyte) }
        #expect(budget.used(by: 1) == 8 * Self.mebibyte - Self.step)
        #expect(budget.used == 2 * Self.mebibyte, "only the share counts against the total")
        #expect(greedy.unfinishedLine(2 * Self.step) == .init(setting: "limits.maxBufferedBytesPerUser", limit: 2 * Self.mebibyte))
        let other = ClientMemoryAccount(budget: budget, uid: 2)
        #expect(other.unfinishedLine(2 * Self.mebibyte + Self.step) == nil, "another user has its whole share")
        greedy.outputWaiting(0)
        #expect(budget.used(by: 1) == 0)
        #expect(budget.used == 2 * Self.mebibyte)
    }

    @Test("a connection with output waiting is over its share while its user holds more than the share; it learns so at each count")
    func overShare() {
        let budget = ClientMemoryBudget(limits: .init(total: 8 * Self.mebibyte, perUser: Self.mebibyte))
        let one = ClientMemoryAccount(budget: budget, uid: 5)
        let two = ClientMemoryAccount(budget: budget, uid: 5)
        one.outputAdded(Self.mebibyte)
        #expect(!one.overShare, "at the share, not past it")
        one.outputAdded(Self.step + 1)
        #expect(one.overShare)
        two.outputAdded(100)
        #expect(!two.overShare, "within its own allowance it touches no budget")
        two.outputWaiting(100)
        #expect(two.overShare, "a count asks the budget")
        one.outputWaiting(0)
        #expect(!one.overShare, "nothing of it waits")
        two.outputWaiting(100)
        #expect(!two.overShare, "the other connection gave its room back")
        #expect(budget.used(by: 5) == 0)
    }

    @Test("a user at its share has no room for answers still to be made, another user has; the daemon's budget full, nobody has")
    func noRoom() {
        let budget = ClientMemoryBudget(limits: .init(total: 3 * Self.mebibyte, perUser: 2 * Self.mebibyte))
        let one = ClientMemoryAccount(budget: budget, uid: 1)
        #expect(one.unfinishedLine(2 * Self.mebibyte) == nil)
        #expect(budget.noRoom(for: 1) == nil, "a step short of the share")
        #expect(one.unfinishedLine(2 * Self.mebibyte + Self.step) == nil)
        #expect(budget.noRoom(for: 1) == .init(setting: "limits.maxBufferedBytesPerUser", limit: 2 * Self.mebibyte))
        #expect(budget.noRoom(for: 2) == nil)
        let two = ClientMemoryAccount(budget: budget, uid: 2)
        #expect(two.unfinishedLine(Self.mebibyte + Self.step) == nil)
        #expect(budget.noRoom(for: 3) == .init(setting: "limits.maxBufferedBytes", limit: 3 * Self.mebibyte))
    }

    @Test("a batch's answers count in its user's share as they are made, and once only when the connection writes the batch")
    func batchRoom() {
        let budget = ClientMemoryBudget(limits: .init(total: 64 * Self.mebibyte, perUser: 2 * Self.mebibyte))
        let account = ClientMemoryAccount(budget: budget, uid: 9)
        let room = account.batches
        room.made(Self.step)
        #expect(budget.used(by: 9) == 0, "within the first step, as a single answer")
        #expect(room.noRoom() == nil)
        room.made(2 * Self.mebibyte)
        #expect(budget.used(by: 9) == ClientMemoryAccount.charge(2 * Self.mebibyte + Self.step), "counted before anything is written")
        #expect(room.noRoom()?.setting == "limits.maxBufferedBytesPerUser", "the share is reached: no more answers are made")
        // Written: the connection's count takes over; nothing is counted twice.
        account.outputAdded(2 * Self.mebibyte + Self.step)
        #expect(room.made == 0)
        #expect(budget.used(by: 9) == ClientMemoryAccount.charge(2 * Self.mebibyte + Self.step))
        account.outputWaiting(0)
        #expect(budget.used(by: 9) == 0)
        // A batch still being made when the connection closes gives its room back, and counts no more.
        room.made(Self.mebibyte)
        account.close()
        #expect(budget.used(by: 9) == 0)
        room.made(Self.mebibyte)
        #expect(budget.used(by: 9) == 0)
    }

    @Test("a batch runs no more of its requests once its user holds its share: they are refused unrun, naming the limit; notifications still run")
    func batchStopsAtShare() async throws {
        let daemon = try await InProcessDaemon()
        let share = 4 * Self.step
        let budget = ClientMemoryBudget(limits: .init(total: 64 * Self.mebibyte, perUser: share))
        let account = ClientMemoryAccount(budget: budget, uid: daemon.peer.uid)
        // 20 answers of about 29 KiB each, then a notification that starts a flow.
        let requests = (1...20).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"rpc.discover"}"# } + [#"{"jsonrpc":"2.0","method":"flow.start"}"#]
        let line = try daemon.answer("[" + requests.joined(separator: ",") + "]", batchRoom: account.batches)
        let answers = try #require(try JSONParser.parse(Array(line.utf8)).arrayValue)
        #expect(answers.map { $0["id"] } == (1...20).map { JSONValue.int($0) }, "one answer per request, in order")
        let run = answers.prefix { $0["result"] != nil }
        #expect(run.count > 1 && run.count < 20, "\(run.count) run")
        for refused in answers.dropFirst(run.count) {
            let error = refused["error"]
            #expect(error?["data"]?["kind"] == "limitExceeded", "\(refused)")
            #expect(error?["data"]?["limit"] == "limits.maxBufferedBytesPerUser")
            #expect(error?["data"]?["max"] == .int(share))
            #expect(error?["message"]?.stringValue?.contains("not run") == true)
        }
        // What was made stopped within one answer past the share and the first step.
        #expect(account.batches.made <= share + 2 * Self.step + (answers.count - run.count) * 400)
        #expect(daemon.services.registry.count == 1, "the notification ran")
        account.close()
        #expect(budget.used == 0)
        try await daemon.close()
    }

    @Test("what clients hold falling to half a peak of at least the minimum is told once, until the next such peak")
    func fellFromPeak() {
        let budget = ClientMemoryBudget(limits: .init(total: 64 * Self.mebibyte, perUser: 64 * Self.mebibyte))
        let account = ClientMemoryAccount(budget: budget, uid: 3)
        #expect(account.unfinishedLine(8 * Self.mebibyte) == nil)
        account.unfinishedDropped()
        #expect(!budget.fellFromPeak(minimum: 8 * Self.mebibyte), "the peak was under the minimum")
        #expect(account.unfinishedLine(8 * Self.mebibyte + Self.step) == nil)
        #expect(!budget.fellFromPeak(minimum: 8 * Self.mebibyte), "held still")
        account.unfinishedDropped()
        #expect(budget.fellFromPeak(minimum: 8 * Self.mebibyte))
        #expect(!budget.fellFromPeak(minimum: 8 * Self.mebibyte), "told once")
        #expect(account.unfinishedLine(4 * Self.mebibyte + Self.step) == nil)
        account.unfinishedDropped()
        #expect(!budget.fellFromPeak(minimum: 8 * Self.mebibyte), "the peak since was under the minimum")
    }
}
