import Logging
import NIOCore
import NIOEmbedded
import PetSpotJSON
@testable import PetSpotServer
import Testing

/// The connection handler in process, on an `EmbeddedChannel`: the order of answers,
/// back-pressure, half-close and drain, with answers the test releases when it chooses. The
/// same behaviours over a real socket and a real daemon are in PetSpotIntegrationTests:
/// ConcurrencyTests (order, a small queue, half-close), LimitsTests (answers left unread) and
/// DurabilityTests (the drain at SIGTERM).
@Suite("Connection handler in process")
struct ConnectionHandlerTests {
    /// Answers a line with its own text at once, or, for a line starting "slow", when the test
    /// releases it; a line starting "id" as a result with the line for its id. A line taken in hand while the daemon is stopping is answered "refused …" at
    /// once, as the daemon refuses it `shuttingDown`.
    final class HeldAnswers: Responding {
        /// The lines asked about, in order; "(stopping)" after those asked while draining.
        private(set) var asked: [String] = []
        private var held: [String: EventLoopPromise<ByteBuffer?>] = [:]
        /// The slow line whose work the handler runs next.
        private var slow: String?

        func answer(_ frame: LineFrame, draining: Bool) -> Answer {
            guard case .line(let buffer) = frame else { return .now(ByteBuffer(bytes: JSONWriter.bytes("too long"))) }
            let line = String(buffer: buffer)
            asked.append(draining ? line + " (stopping)" : line)
            if draining { return .now(ByteBuffer(bytes: JSONWriter.bytes(.string("refused " + line)))) }
            if line.hasPrefix("id") { return .ready(.result(id: .string(line), JSONWriter.bytes(true))) }
            guard line.hasPrefix("slow") else { return .now(ByteBuffer(bytes: JSONWriter.bytes(.string(line)))) }
            slow = line
            return .later { nil }
        }

        /// The handler's way to run a slow line's work: a promise the test fulfils with `release`.
        func runLater(_ work: @escaping @Sendable () async -> ByteBuffer?, _ eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
            let promise = eventLoop.makePromise(of: ByteBuffer?.self)
            if let line = slow.take() { held[line] = promise }
            return promise.futureResult
        }

        func release(_ line: String) throws {
            let promise = held.removeValue(forKey: line)
            try #require(promise != nil, "\(line) is not waiting")
            promise?.succeed(ByteBuffer(bytes: JSONWriter.bytes(.string(line))))
        }
    }

    let answers = HeldAnswers()
    let channel: EmbeddedChannel

    init() throws {
        channel = EmbeddedChannel(handler: ConnectionHandler(
            responder: answers, peer: Peer(pid: 1, uid: 1000, gid: 1000), limits: DaemonConfiguration.Limits(),
            logger: Logger(label: "test"), runLater: answers.runLater))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    /// Lines that arrive in one read.
    func send(_ lines: String...) {
        for line in lines {
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(LineFrame.line(channel.allocator.buffer(string: line))))
        }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    /// The answers written since the last look, one per line.
    func written() throws -> [String] {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            text += String(buffer: buffer)
        }
        return try text.split(separator: "\n").map(Self.answered)
    }

    /// The line an answer answers: its text, or a result's id.
    static func answered(_ answer: Substring) throws -> String {
        let value = try JSONParser.parse(Array(answer.utf8))
        return try #require(value.stringValue ?? value["id"]?.stringValue)
    }

    func setWritable(_ writable: Bool) {
        channel.isWritable = writable
        channel.pipeline.syncOperations.fireChannelWritabilityChanged()
    }

    @Test("answers go out in the order the lines came; a line is taken in hand only once the one before is answered")
    func order() throws {
        send("slow 1", "fast 2", "fast 3", "slow 4", "fast 5")
        #expect(try written() == [])
        #expect(answers.asked == ["slow 1"])

        try answers.release("slow 1")
        #expect(try written() == ["slow 1", "fast 2", "fast 3"])
        #expect(answers.asked == ["slow 1", "fast 2", "fast 3", "slow 4"])

        send("fast 6")
        #expect(try written() == [], "a later read waits behind slow 4 too")
        try answers.release("slow 4")
        #expect(try written() == ["slow 4", "fast 5", "fast 6"])
        #expect(channel.isActive)
    }

    @Test("the answers of one read reach the channel as one write; one of the gathering size or more as a write of its own")
    func gathered() throws {
        /// The answers of each write since the last look.
        func writes() throws -> [[String]] {
            var writes: [[String]] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                writes.append(try String(buffer: buffer).split(separator: "\n").map(Self.answered))
            }
            return writes
        }
        send("fast 1", "id 2", "fast 3")
        #expect(try writes() == [["fast 1", "id 2", "fast 3"]])
        let large = "fast " + String(repeating: "x", count: ConnectionHandler.gatheredBytes)
        send("fast 4", large, "fast 5", "fast 6")
        #expect(try writes() == [["fast 4"], [large], ["fast 5", "fast 6"]])
        // A result's line is written into the gathering; one whose id alone is too long for it
        // goes on its own, as any other line of that size.
        let longID = "id " + String(repeating: "x", count: ConnectionHandler.gatheredBytes)
        send("id 7", longID, "id 8")
        #expect(try writes() == [["id 7"], [longID], ["id 8"]])
    }

    @Test("a result written into the gathering is the line the answer writer writes, byte for byte")
    func resultLine() throws {
        send("id \"1\"")
        var out = ByteBuffer()
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { out.writeBuffer(&buffer) }
        #expect(String(buffer: out) == String(buffer: AnswerWriter.success(id: .string(#"id "1""#), JSONWriter.bytes(true))) + "\n")
        #expect(String(buffer: out) == #"{"jsonrpc":"2.0","id":"id \"1\"","result":true}"# + "\n")
    }

    @Test("blank lines are passed over without an answer")
    func blankLines() throws {
        send("fast 1", " \t\r", "", "fast 2")
        #expect(try written() == ["fast 1", "fast 2"])
        #expect(answers.asked == ["fast 1", "fast 2"])
    }

    @Test("an unwritable channel holds new requests back; writable again, they are answered")
    func backPressure() throws {
        send("slow 1", "fast 2")
        setWritable(false)
        // What is in hand is still written: the client will read it when it can.
        try answers.release("slow 1")
        #expect(try written() == ["slow 1"])
        send("fast 3")
        #expect(try written() == [])
        #expect(answers.asked == ["slow 1"], "nothing new is taken in hand while answers wait unread")

        setWritable(true)
        #expect(try written() == ["fast 2", "fast 3"])
        #expect(answers.asked == ["slow 1", "fast 2", "fast 3"])
    }

    @Test("a client that reads nothing for limits.stalledReaderTimeoutSeconds is closed, not a moment before")
    func stalledReader() throws {
        let timeout = TimeAmount.seconds(Int64(DaemonConfiguration.Limits().stalledReaderTimeoutSeconds))
        send("fast 1")
        setWritable(false)
        channel.embeddedEventLoop.advanceTime(by: timeout - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a client that reads again in time is not closed")
    func readerCatchesUp() throws {
        let timeout = TimeAmount.seconds(Int64(DaemonConfiguration.Limits().stalledReaderTimeoutSeconds))
        setWritable(false)
        channel.embeddedEventLoop.advanceTime(by: timeout - .nanoseconds(1))
        setWritable(true)
        channel.embeddedEventLoop.advanceTime(by: timeout * 2)
        #expect(channel.isActive)
    }

    @Test("half-closed: every pending answer is written, then the connection closes")
    func halfClose() throws {
        send("slow 1", "fast 2")
        channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive, "open while answers are pending")
        try answers.release("slow 1")
        #expect(try written() == ["slow 1", "fast 2"])
        #expect(!channel.isActive)
    }

    @Test("half-closed with nothing pending: the connection closes at once")
    func halfCloseIdle() throws {
        send("fast 1")
        channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try written() == ["fast 1"])
        #expect(!channel.isActive)
    }

    @Test("drain: the request in hand is answered, those waiting are refused, then the connection closes")
    func drain() throws {
        send("slow 1", "fast 2", "slow 3")
        channel.pipeline.syncOperations.fireUserInboundEventTriggered(DrainAndCloseEvent(descriptors: [:]))
        #expect(channel.isActive, "open while slow 1 runs")
        #expect(try written() == [])
        try answers.release("slow 1")
        #expect(answers.asked == ["slow 1", "fast 2 (stopping)", "slow 3 (stopping)"])
        #expect(try written() == ["slow 1", "refused fast 2", "refused slow 3"])
        #expect(!channel.isActive)
    }

    @Test("drain with nothing in hand: the connection closes at once")
    func drainIdle() throws {
        channel.pipeline.syncOperations.fireUserInboundEventTriggered(DrainAndCloseEvent(descriptors: [:]))
        #expect(!channel.isActive)
        #expect(try written() == [])
    }

    /// A handler on a channel with a budget and watches, as the daemon sets one up; `before`
    /// sits between it and the socket.
    func watchingChannel(budget: ClientMemoryBudget, before: [any ChannelHandler] = [])
        throws -> (channel: EmbeddedChannel, loop: EmbeddedEventLoop, account: ClientMemoryAccount, subscriber: Subscriber)
    {
        let loop = EmbeddedEventLoop()
        let peer = Peer(pid: 1, uid: 1000, gid: 1000)
        let account = ClientMemoryAccount(budget: budget, uid: peer.uid)
        let target = NIOLoopBoundBox.makeEmptyBox(valueType: ConnectionHandler.self, eventLoop: loop)
        let subscriber = Subscriber(peer: peer, budget: budget) { loop.execute { target.value?.notificationsWaiting() } }
        let handler = ConnectionHandler(responder: answers, peer: peer, limits: DaemonConfiguration.Limits(), logger: Logger(label: "test"),
                                        account: account, watches: (subscriber, SubscriptionHub(maxQueuedBytes: 1 << 20), target),
                                        runLater: answers.runLater)
        let channel = EmbeddedChannel(handlers: before + [handler], loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop, account, subscriber)
    }

    func read(_ channel: EmbeddedChannel) throws -> [String] {
        var sent = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { sent += String(buffer: buffer) }
        return sent.split(separator: "\n").map(String.init)
    }

    @Test("notifications waiting behind an answer in hand count against the user's share until they are written")
    func waitingNotificationsCount() throws {
        let budget = ClientMemoryBudget(limits: .init(total: 1 << 30, perUser: 1 << 30))
        let (channel, loop, account, subscriber) = try watchingChannel(budget: budget)
        channel.pipeline.syncOperations.fireChannelRead(NIOAny(LineFrame.line(channel.allocator.buffer(string: "slow 1"))))
        channel.pipeline.syncOperations.fireChannelReadComplete()

        let id = try #require(subscriber.add(.location, max: 16))
        let line = Array(#"{"method":"location.changed"}"#.utf8)
        subscriber.post(id, line, maxQueuedBytes: 1 << 20) { [] }
        loop.run()
        #expect(budget.used(by: 1000) == line.count, "waiting in the subscriber while the answer is in hand")

        try answers.release("slow 1")
        loop.run()
        #expect(budget.used(by: 1000) == 0 && account.output == 0, "written once the answer is")
        #expect(try read(channel).count == 2)
        _ = try channel.finish()
    }

    /// Passes writes on but holds flushes back while `holding`: a socket that takes nothing.
    final class HeldFlushes: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var holding = true

        func flush(context: ChannelHandlerContext) {
            if !holding { context.flush() }
        }
    }

    @Test("notifications wait in the subscriber, counted, while the socket has not taken what was written before; then they go out together")
    func notificationsWaitBehindUnsentOutput() throws {
        let budget = ClientMemoryBudget(limits: .init(total: 1 << 30, perUser: 1 << 30))
        let socket = HeldFlushes()
        let (channel, loop, _, subscriber) = try watchingChannel(budget: budget, before: [socket])
        let id = try #require(subscriber.add(.reports(1000), max: 16))
        send(channel, "fast 1")
        for n in 1...3 { subscriber.post(id, Array(#"{"n":\#(n)}"#.utf8), maxQueuedBytes: 1 << 20) { [] } }
        loop.run()
        #expect(subscriber.queuedBytes == 21, "not written behind the unsent answer")
        #expect(budget.used(by: 1000) == 21)

        // The client reads: the answer leaves, and the next count finds the channel empty.
        socket.holding = false
        channel.flush()
        #expect(try read(channel) == [#""fast 1""#])
        loop.advanceTime(by: ConnectionHandler.outputRecountInterval)
        #expect(subscriber.queuedBytes == 0)
        var lines = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(lines.readString(length: lines.readableBytes) == "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", "in one buffer")
        _ = try channel.finish()
    }

    @Test("a batch counted in its user's share while it is made is counted once it is written, and its room comes back when sent")
    func batchRoomHandedOver() throws {
        let budget = ClientMemoryBudget(limits: .init(total: 1 << 30, perUser: 1 << 30))
        let (channel, loop, account, _) = try watchingChannel(budget: budget)
        send(channel, "slow batch")
        // The answering makes the batch off the event loop, counting it as it goes.
        let size = 1 << 20
        account.batches.made(size)
        #expect(budget.used(by: 1000) == ClientMemoryAccount.charge(size))
        try answers.release("slow batch")
        loop.run()
        #expect(account.batches.made == 0)
        #expect(budget.used(by: 1000) == 0, "written and sent: nothing of it is held")
        #expect(try read(channel) == [#""slow batch""#])
        _ = try channel.finish()
    }

    /// Lines that arrive in one read on `channel`.
    func send(_ channel: EmbeddedChannel, _ lines: String...) {
        for line in lines {
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(LineFrame.line(channel.allocator.buffer(string: line))))
        }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }
}
