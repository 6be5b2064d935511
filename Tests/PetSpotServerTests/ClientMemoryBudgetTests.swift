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
