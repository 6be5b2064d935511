#if canImport(Glibc)
import Glibc
#endif
import PetSpotClient

/// What came first while the session waited for the person's next line.
enum InputEvent: Equatable {
    /// A line, without its line ending.
    case line(String)
    /// The input ended.
    case ended
    /// One of the connection's watches spoke first.
    case notification(DaemonNotification)
}

/// Where a session hears from its watch: the connection its calls go through.
protocol NotificationSource: AnyObject {
    /// A notification that has come already, taken without waiting; nil when none has come whole.
    func notificationIfReady() throws(ClientError) -> DaemonNotification?
    /// Readable when more may have come, for poll(2).
    var notificationDescriptor: Int32 { get }
    /// Forgets the notifications that came while calls waited: their answers are newer.
    func discardNotificationsBeforeAnswers()
}

extension PetSpotConnection: NotificationSource {
    var notificationDescriptor: Int32 { withDescriptor { $0 } }
}

/// Where the lines a person types come from: stdin, or a script in a test.
protocol LineInput: AnyObject {
    /// The next line, or `.ended` at the end of the input; but a notification of `notifications`
    /// as soon as one comes, if it comes first (or has come already). Errors are the connection's.
    func next(or notifications: NotificationSource?) throws(ClientError) -> InputEvent
}

/// stdin, a keyboard or a pipe: the terminal's own line editing does the rest. While no whole
/// line has come it waits with poll(2) on stdin and on the connection together.
final class StandardInput: LineInput {
    private var reader: LineReader

    init(descriptor: Int32 = STDIN_FILENO) {
        reader = LineReader(descriptor: descriptor)
    }

    func next(or notifications: NotificationSource?) throws(ClientError) -> InputEvent {
        while true {
            if let notification = try notifications?.notificationIfReady() { return .notification(notification) }
            if let line = reader.takeLine() { return .line(line) }
            if reader.ended { return .ended }
            var descriptors = [pollfd(fd: reader.descriptor, events: Int16(POLLIN), revents: 0)]
            if let notifications {
                descriptors.append(pollfd(fd: notifications.notificationDescriptor, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                // poll(2) itself failed (out of memory): read the person's line without the watch.
                reader.fill()
                continue
            }
            // Readable, hung up or failed: the read says which. The connection is asked next round.
            if descriptors[0].revents != 0 { reader.fill() }
        }
    }
}

/// Lines from a descriptor through a buffer of its own, filled with read(2). stdio's buffer
/// (`Swift.readLine`) cannot be seen: a line it had read ahead would wait there while poll(2)
/// says nothing has come. Here a line is ready exactly when it is in `buffer` or the
/// descriptor is readable.
struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    /// read(2) said the input ended (or failed, which ends it too).
    private(set) var ended = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next whole line read so far, without "\n" or "\r\n"; once the input has ended, what
    /// is left after the last newline. Nil when no whole line has come yet.
    mutating func takeLine() -> String? {
        if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Self.text(buffer[..<newline])
            buffer.removeSubrange(...newline)
            return line
        }
        guard ended, !buffer.isEmpty else { return nil }
        defer { buffer = [] }
        return Self.text(buffer[...])
    }

    /// One read(2) of what the descriptor has now; it waits if nothing has come yet.
    mutating func fill() {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[..<n])
                return
            }
            if n < 0, errno == EINTR { continue }
            // A non-blocking stdin with nothing yet: poll again.
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            ended = true
            return
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
    }
}

/// Lines given up front, for tests of the session: a line is always ready, but a notification
/// that has come already goes first.
final class ScriptedInput: LineInput {
    private var lines: [String]

    init(_ lines: [String]) {
        self.lines = lines
    }

    func next(or notifications: NotificationSource?) throws(ClientError) -> InputEvent {
        if let notification = try notifications?.notificationIfReady() { return .notification(notification) }
        return lines.isEmpty ? .ended : .line(lines.removeFirst())
    }
}
