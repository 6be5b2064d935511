import NIOCore
@testable import PetSpotServer
import Testing

/// The connection's decisions without a channel: what is taken in hand, when reading stops and
/// goes on, when notifications may go out, how a connection finishes, when a reader has stalled.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    static func line(_ text: String) -> LineFrame {
        .line(ByteBuffer(string: text))
    }

    static func text(_ frame: LineFrame?) -> String? {
        guard case .line(let buffer)? = frame else { return nil }
        return String(buffer: buffer)
    }

    @Test("lines are taken in the order they came, one in hand at a time")
    func order() {
        var machine = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        for n in 1...3 { machine.read(Self.line("\(n)")) }
        #expect(Self.text(machine.nextLine(overShare: false)) == "1")
        machine.waitsForAnswer()
        #expect(machine.nextLine(overShare: false) == nil, "a second line was taken while one is in hand")
        #expect(!machine.mayWriteNotifications, "notifications while an answer is in hand")
        machine.answered()
        #expect(Self.text(machine.nextLine(overShare: false)) == "2")
        #expect(Self.text(machine.nextLine(overShare: false)) == "3")
        #expect(machine.nextLine(overShare: false) == nil)
    }

    @Test("too many lines waiting stop the reading, which goes on once half of them are answered", arguments: [
        (4, 1 << 20, Array(repeating: 1, count: 4), 2),
        (1_000, 100, [60, 60], 2),
    ])
    func backPressure(maxCount: Int, maxBytes: Int, sizes: [Int], takenBeforeReading: Int) {
        var machine = ConnectionStateMachine(maxQueuedRequests: maxCount, maxQueuedBytes: maxBytes)
        machine.read(Self.line("first"))
        _ = machine.nextLine(overShare: false)
        machine.waitsForAnswer()
        for size in sizes { machine.read(Self.line(String(repeating: "x", count: size))) }
        machine.settleQueue()
        let reading1 = machine.readingChange()
        #expect(reading1 == false)
        let reading2 = machine.readingChange()
        #expect(reading2 == nil, "told to stop twice")
        machine.answered()
        var taken = 0
        while machine.queue.isFull {
            _ = machine.nextLine(overShare: false)
            machine.settleQueue()
            taken += 1
        }
        #expect(taken == takenBeforeReading)
        let reading3 = machine.readingChange()
        #expect(reading3 == true)
    }

    @Test("a client behind its answers, or a user past its share, holds new lines and the reading back")
    func heldBack() {
        var machine = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        machine.read(Self.line("a"))
        machine.writability(false)
        #expect(machine.heldBackByClient)
        #expect(machine.nextLine(overShare: false) == nil)
        let reading4 = machine.readingChange()
        #expect(reading4 == false)
        machine.writability(true)
        #expect(machine.nextLine(overShare: true) == nil, "taken while the user is past its share")
        let shareChanged1 = machine.share(over: true)
        #expect(shareChanged1)
        let shareChanged2 = machine.share(over: true)
        #expect(!shareChanged2, "the same share twice is no change")
        let reading5 = machine.readingChange()
        #expect(machine.heldBackByClient && reading5 == nil)
        let shareChanged3 = machine.share(over: false)
        #expect(shareChanged3)
        let reading6 = machine.readingChange()
        #expect(reading6 == true)
        #expect(Self.text(machine.nextLine(overShare: false)) == "a")
    }

    @Test("notifications wait for output the socket has not taken, and never go once the close has begun")
    func notifications() {
        var machine = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        #expect(machine.mayWriteNotifications)
        machine.unsent(10)
        #expect(!machine.mayWriteNotifications)
        machine.unsent(0)
        machine.writability(false)
        #expect(!machine.mayWriteNotifications)
        machine.writability(true)
        machine.inputEnded()
        let step1 = machine.closeStep()
        #expect(step1 == .close)
        #expect(!machine.mayWriteNotifications)
    }

    @Test("a half-closed connection closes once everything read is answered")
    func halfClose() {
        var machine = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        machine.read(Self.line("a"))
        machine.inputEnded()
        let reading7 = machine.readingChange()
        #expect(reading7 == false)
        let step2 = machine.closeStep()
        #expect(step2 == nil, "closed with a line unanswered")
        _ = machine.nextLine(overShare: false)
        machine.waitsForAnswer()
        let step3 = machine.closeStep()
        #expect(step3 == nil, "closed with an answer in hand")
        machine.answered()
        let step4 = machine.closeStep()
        #expect(step4 == .close)
        let step5 = machine.closeStep()
        #expect(step5 == nil, "closed twice")
    }

    @Test("draining: lines taken are refused, the input is shut once all is answered, and the end of input closes")
    func drain() {
        var machine = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        let step6 = machine.closeStep()
        #expect(step6 == nil, "a serving connection closed")
        machine.drain()
        #expect(machine.lifecycle.isDraining)
        let step7 = machine.closeStep()
        #expect(step7 == .shutInput)
        let step8 = machine.closeStep()
        #expect(step8 == nil, "the input shut twice")
        machine.inputEnded()
        let step9 = machine.closeStep()
        #expect(step9 == .close)

        var unshut = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        unshut.drain()
        let step10 = unshut.closeStep()
        #expect(step10 == .shutInput)
        let afterFailedShut1 = unshut.inputShutFailed()
        #expect(afterFailedShut1 == .close)
        #expect(unshut.lifecycle == .closing)

        var ended = ConnectionStateMachine(maxQueuedRequests: 100, maxQueuedBytes: 1 << 20)
        ended.inputEnded()
        ended.drain()
        #expect(ended.lifecycle == .drainedInputEnded)
        let step11 = ended.closeStep()
        #expect(step11 == .close)
    }

    @Test("a stalled reader: bytes leaving the channel are progress; none for the timeout is a stall")
    func stallWatch() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var watch = StallWatch(timeout: .seconds(30), now: start, buffered: 1_000)
        #expect(watch.interval == .milliseconds(7_500))
        let stalled1 = watch.hasStalled(now: start + .seconds(20), buffered: 900)
        #expect(!stalled1, "progress counted as a stall")
        let stalled2 = watch.hasStalled(now: start + .seconds(49), buffered: 900)
        #expect(!stalled2)
        let stalled3 = watch.hasStalled(now: start + .seconds(50), buffered: 900)
        #expect(stalled3)
        // An answer added meanwhile: the same bytes left means some went out.
        var busy = StallWatch(timeout: .seconds(1), now: start, buffered: 100)
        busy.written(50)
        let stalled4 = busy.hasStalled(now: start + .seconds(2), buffered: 120)
        #expect(!stalled4)
        let stalled5 = busy.hasStalled(now: start + .seconds(3), buffered: 120)
        #expect(stalled5)
        #expect(StallWatch(timeout: .milliseconds(8), now: start, buffered: 0).interval == .milliseconds(10))
    }
}
