#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// A TCP server that speaks gpsd's JSON protocol and lies on demand: it greets with VERSION,
/// waits for `?WATCH`, then streams what its mode says, several times a second, to every
/// watching client. The real gpsd (`GpsdFixture`) tells the truth; this one tests what the
/// daemon does with a gpsd that does not.
final class FakeGpsd: Sendable {
    enum Mode: String, Sendable {
        /// TPV reports of a 3D fix at `truth`, with the current time.
        case truth
        /// Random bytes, newlines among them.
        case garbage
        /// TPV reports cut off in the middle, then a newline.
        case truncated
        /// TPV reports whose lat and lon are NaN (not JSON, but what a broken writer emits).
        case nan
        /// TPV reports with lat 123.4 and lon 567.8: well-formed, impossible.
        case outOfRange
        /// One line of several MiB.
        case hugeLine
        /// Accepts and sends nothing, not even its greeting.
        case stall
    }

    static let truth = (latitude: "52.2296756", longitude: "21.0122287")

    let port: Int
    private let listener: Int32
    private let mode: NIOLockedValueBox<Mode>
    /// Lines (or bursts) sent after a client's `?WATCH`, by mode.
    private let sent = NIOLockedValueBox<[Mode: Int]>([:])
    private let stopping = Synchronization.Atomic<Bool>(false)
    private let clients = NIOLockedValueBox<[Int32]>([])

    init(mode: Mode) throws {
        self.mode = NIOLockedValueBox(mode)
        (listener, port) = try loopbackSocket(listening: true)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Changes what every client is sent from now on; returns the count already sent in `newMode`.
    @discardableResult
    func set(_ newMode: Mode) -> Int {
        mode.withLockedValue { $0 = newMode }
        return sentCount(newMode)
    }

    func sentCount(_ mode: Mode) -> Int { sent.withLockedValue { $0[mode] ?? 0 } }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in clients.withLockedValue({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { if !stopping.load(ordering: .relaxed) { stop() } }

    private func acceptLoop() {
        while !stopping.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            var on: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            clients.withLockedValue { $0.append(client) }
            let thread = Thread { [self] in
                serve(client)
                clients.withLockedValue { $0.removeAll { $0 == client } }
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        var request: [UInt8] = []
        /// Waits one tick for the client's bytes, keeping them; false once it has gone.
        func readTick() -> Bool {
            switch waitReadable(fd, milliseconds: 200) {
            case .closed: return false
            case .timeout: return true
            case .readable:
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 4096, 0) }
                guard n > 0 else { return false }
                request += buffer[..<n]
                return true
            }
        }
        // A stalling gpsd stays silent from the start, each tick counted; it may speak later.
        while mode.withLockedValue({ $0 }) == .stall {
            guard !stopping.load(ordering: .relaxed), readTick() else { return }
            sent.withLockedValue { $0[.stall, default: 0] += 1 }
        }
        guard send(fd, #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n") else { return }
        // Until the client asks to watch.
        while !String(decoding: request, as: UTF8.self).contains("?WATCH") {
            guard !stopping.load(ordering: .relaxed), readTick() else { return }
        }
        guard send(fd, #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/fake","driver":"NMEA0183","activated":"2026-01-01T00:00:00.000Z","flags":1}]}"# + "\n"
                  + #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"# + "\n")
        else { return }
        var rng = SystemRandomNumberGenerator()
        var hugeSent = false
        while !stopping.load(ordering: .relaxed) {
            let current = mode.withLockedValue { $0 }
            var text: String?
            var bytes: [UInt8]?
            switch current {
            case .truth: text = Self.tpv(latitude: Self.truth.latitude, longitude: Self.truth.longitude)
            case .garbage: bytes = (0..<512).map { _ in UInt8.random(in: 0...255, using: &rng) } + [0x0A]
            case .truncated: text = String(Self.tpv(latitude: Self.truth.latitude, longitude: Self.truth.longitude).dropLast().prefix(60)) + "\n"
            case .nan: text = Self.tpv(latitude: "NaN", longitude: "NaN")
            case .outOfRange: text = Self.tpv(latitude: "123.4", longitude: "567.8")
            case .hugeLine:
                // Once per connection: the point is its length, not its rate.
                if !hugeSent {
                    hugeSent = true
                    text = #"{"class":"TPV","device":"/dev/fake","mode":3,"tag":""# + String(repeating: "x", count: 6 << 20) + "\"}\n"
                }
            case .stall: break
            }
            if let text { bytes = Array(text.utf8) }
            if let bytes {
                let delivered = send(fd, bytes)
                // A huge line counts once tried: a client that hangs up in the middle of it has read its fill.
                if delivered || current == .hugeLine { sent.withLockedValue { $0[current, default: 0] += 1 } }
                guard delivered else { return }
            } else if current == .stall {
                sent.withLockedValue { $0[current, default: 0] += 1 }
            }
            // The fake's own rate (5 Hz); also how soon it notices a hang-up. The client's later
            // requests (?WATCH={"enable":false}) are read and dropped.
            request.removeAll()
            guard readTick() else { return }
        }
    }

    /// A TPV report of a 3D fix at the given coordinates (written as they are), time now.
    static func tpv(latitude: String, longitude: String) -> String {
        let now = Date()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return #"{"class":"TPV","device":"/dev/fake","mode":3,"time":"\#(formatter.string(from: now))","ept":0.005,"#
            + #""lat":\#(latitude),"lon":\#(longitude),"altHAE":140.0,"epx":3.0,"epy":3.0,"eph":4.2,"speed":0.0,"track":0.0}"# + "\n"
    }

    private enum Readiness { case readable, timeout, closed }

    /// Waits for input; a client that hung up (or sent something and hung up) reads as closed.
    private func waitReadable(_ fd: Int32, milliseconds: Int32) -> Readiness {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready == 0 { return .timeout }
        if ready < 0 { return errno == EINTR ? .timeout : .closed }
        if poller.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .closed }
        var peek: UInt8 = 0
        return recv(fd, &peek, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 ? .closed : .readable
    }

    private func send(_ fd: Int32, _ text: String) -> Bool { send(fd, Array(text.utf8)) }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
