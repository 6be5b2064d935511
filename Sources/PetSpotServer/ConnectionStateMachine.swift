import NIOCore

/// What one connection is doing, as values: the decisions of `ConnectionHandler` without its
/// channel, so that each is tested on its own (as swift-nio's HTTP server pipeline handler and
/// swift-nio-http2's connection state machine keep theirs). The handler tells the machine what
/// happened and does what it answers; the machine never touches the channel.
///
/// Its parts, one job each:
/// - `RequestQueue`: lines answered one at a time, in the order they came, and the read
///   back-pressure of lines that wait;
/// - `OutputGate`: what holds a connection back while its client has not read its answers
///   (the write watermark, its user's share of the memory budget, output the socket has not
///   taken), and so when a new request is taken and when notifications may be written;
/// - `StallWatch`: when a client that reads none of its answers is closed;
/// - `Lifecycle`: serving, then finishing (the input ended, or the daemon drains), then closed.
/// Memory accounting itself is `ClientMemoryAccount`'s; the machine only follows what it says.
struct ConnectionStateMachine {
    /// Where the connection is in its life.
    enum Lifecycle: Equatable {
        case serving
        /// No more lines come (the client half-closed, `nc -N`): what was read is answered, then
        /// the connection closes.
        case inputEnded
        /// The daemon is stopping: what is in hand is answered, lines not yet begun are refused
        /// `shuttingDown`, and then the input is shut, so that the client's later writes fail
        /// at once instead of going unread. `inputShut`: that was asked for.
        case draining(inputShut: Bool)
        /// Draining, and the input has ended too: close once everything is answered.
        case drainedInputEnded
        /// Everything is answered and the close has begun.
        case closing

        /// Lines taken in hand now are refused `shuttingDown`.
        var isDraining: Bool {
            switch self {
            case .draining, .drainedInputEnded: true
            case .serving, .inputEnded, .closing: false
            }
        }

        var inputHasEnded: Bool {
            switch self {
            case .inputEnded, .drainedInputEnded, .closing: true
            case .serving, .draining: false
            }
        }
    }

    /// What the handler does for the connection to finish, once everything is answered.
    enum CloseStep: Equatable {
        /// Shut the socket's input (SHUT_RD); the end of input comes back as `inputEnded`.
        case shutInput
        /// Write what is left and close.
        case close
    }

    private(set) var lifecycle = Lifecycle.serving
    private(set) var queue: RequestQueue
    private(set) var output = OutputGate()
    /// Whether the channel reads (autoRead) now.
    private(set) var reading = true

    init(maxQueuedRequests: Int, maxQueuedBytes: Int) {
        queue = RequestQueue(maxCount: maxQueuedRequests, maxBytes: maxQueuedBytes)
    }

    // MARK: reading

    /// Whether the connection should read: not while its client is behind, its user holds more
    /// than its share, too many lines wait, or after its input ended.
    var wantsReading: Bool {
        !output.blockedByWatermark && !output.overShare && !queue.isFull && !lifecycle.inputHasEnded
    }

    /// The reading the connection should switch to, if it should switch.
    mutating func readingChange() -> Bool? {
        let wanted = wantsReading
        guard wanted != reading else { return nil }
        reading = wanted
        return wanted
    }

    /// A line was read: it waits its turn.
    mutating func read(_ frame: LineFrame) {
        queue.append(frame)
    }

    // MARK: one request at a time

    /// The next line to take in hand, if the connection may take one now: none is in hand, the
    /// client is not behind, and its user is within its share (`overShare`, as the account says
    /// it now).
    mutating func nextLine(overShare: Bool) -> LineFrame? {
        guard !queue.hasOneInHand, !output.blockedByWatermark, !overShare else { return nil }
        return queue.next()
    }

    /// The line taken is answered later: nothing else is taken in hand until `answered()`.
    mutating func waitsForAnswer() {
        queue.takeInHand()
    }

    mutating func answered() {
        queue.answered()
    }

    /// Lines were taken in hand as far as they could be: whether too many wait now.
    mutating func settleQueue() {
        queue.settle()
    }

    /// A client that is gone gets nothing more done on its behalf.
    mutating func dropWaiting() {
        queue.clear()
    }

    // MARK: output

    /// Notifications are written only between answers and once the socket has taken what was
    /// written before; not once the close has begun.
    var mayWriteNotifications: Bool {
        !queue.hasOneInHand && output.mayWriteMore && lifecycle != .closing
    }

    /// The channel passed its high watermark (`false`) or fell back under the low one.
    mutating func writability(_ writable: Bool) {
        output.blockedByWatermark = !writable
    }

    /// What the channel holds that the socket has not taken, after a count.
    mutating func unsent(_ bytes: Int) {
        output.unsent = bytes > 0
    }

    /// Whether the user is past its share changed; answers whether it did.
    mutating func share(over: Bool) -> Bool {
        guard over != output.overShare else { return false }
        output.overShare = over
        return true
    }

    /// Something holds the connection back that a client reading its answers would clear:
    /// the stall watch runs while it does.
    var heldBackByClient: Bool { output.blockedByWatermark || output.overShare }

    // MARK: finishing

    /// The input ended (a half-close, or the input shut while draining).
    mutating func inputEnded() {
        switch lifecycle {
        case .serving: lifecycle = .inputEnded
        case .draining: lifecycle = .drainedInputEnded
        case .inputEnded, .drainedInputEnded, .closing: break
        }
    }

    /// The daemon is stopping.
    mutating func drain() {
        switch lifecycle {
        case .serving: lifecycle = .draining(inputShut: false)
        case .inputEnded: lifecycle = .drainedInputEnded
        case .draining, .drainedInputEnded, .closing: break
        }
    }

    /// What to do to finish, once the connection is finishing and everything is answered; nil
    /// when it is not time yet (or the step was taken).
    mutating func closeStep() -> CloseStep? {
        guard !queue.hasOneInHand, queue.isEmpty else { return nil }
        switch lifecycle {
        case .serving, .closing, .draining(inputShut: true):
            return nil
        case .draining(inputShut: false):
            lifecycle = .draining(inputShut: true)
            return .shutInput
        case .inputEnded, .drainedInputEnded:
            lifecycle = .closing
            return .close
        }
    }

    /// The input could not be shut (the socket is not ours to find): close now instead.
    mutating func inputShutFailed() -> CloseStep {
        lifecycle = .closing
        return .close
    }

    /// The connection is closing for another reason (a stalled reader).
    mutating func closeNow() {
        lifecycle = .closing
    }
}

/// A connection's lines in the order they came: one in hand at a time, the rest waiting. Too
/// many waiting (`maxCount` lines, or more than `maxBytes`) stops the reading until half of them
/// are answered, so a client that sends faster than it is answered waits instead of filling
/// memory.
struct RequestQueue {
    let maxCount: Int
    let maxBytes: Int
    private(set) var waiting = CircularBuffer<LineFrame>()
    /// What the waiting lines hold in memory.
    private(set) var waitingBytes = 0
    /// A line's answer is being worked on off the event loop.
    private(set) var hasOneInHand = false
    private(set) var isFull = false

    init(maxCount: Int, maxBytes: Int) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }

    var isEmpty: Bool { waiting.isEmpty }

    mutating func append(_ frame: LineFrame) {
        waiting.append(frame)
        waitingBytes += frame.size
    }

    mutating func next() -> LineFrame? {
        guard let frame = waiting.popFirst() else { return nil }
        waitingBytes -= frame.size
        return frame
    }

    /// After lines were taken in hand: full once too many wait, and no longer full once half
    /// of them are answered.
    mutating func settle() {
        if !isFull, waiting.count >= maxCount || waitingBytes > maxBytes {
            isFull = true
        } else if isFull, waiting.count <= maxCount / 2, waitingBytes <= maxBytes / 2 {
            isFull = false
        }
    }

    mutating func takeInHand() { hasOneInHand = true }
    mutating func answered() { hasOneInHand = false }

    mutating func clear() {
        waiting.removeAll()
        waitingBytes = 0
        isFull = false
    }
}

/// What holds a connection's output back.
struct OutputGate {
    /// The channel holds more unsent answers than `limits.maxPendingOutputBytes`: no new
    /// request is taken, nor read, until the client reads half of them.
    var blockedByWatermark = false
    /// The connection's user holds more than its share of the memory budget.
    var overShare = false
    /// At the last count the channel held output the socket had not taken: notifications wait
    /// behind it in the subscriber, where they take less memory and can become one `overflow`.
    var unsent = false

    var mayWriteMore: Bool { !blockedByWatermark && !unsent }
}

/// When a client that reads none of its answers is closed: progress is bytes leaving the
/// channel, looked at every quarter of `timeout` (at least every 10 ms) while the client holds
/// the connection back; no progress for `timeout` closes it.
struct StallWatch {
    let timeout: TimeAmount
    private var lastProgress: NIODeadline
    private var bufferedAtCheck: Int
    private var writtenSinceCheck = 0

    /// Watching from `now`, with `buffered` bytes unsent.
    init(timeout: TimeAmount, now: NIODeadline, buffered: Int) {
        self.timeout = timeout
        self.lastProgress = now
        self.bufferedAtCheck = buffered
    }

    /// How often to look.
    var interval: TimeAmount { .nanoseconds(max(timeout.nanoseconds / 4, 10_000_000)) }

    /// Answers written since the last look: bytes went out if fewer remain than were there and
    /// were added.
    mutating func written(_ bytes: Int) {
        writtenSinceCheck += bytes
    }

    /// A look at `now` with `buffered` bytes unsent: whether the client has stalled.
    mutating func hasStalled(now: NIODeadline, buffered: Int) -> Bool {
        if buffered < bufferedAtCheck + writtenSinceCheck { lastProgress = now }
        bufferedAtCheck = buffered
        writtenSinceCheck = 0
        return now - lastProgress >= timeout
    }
}
