#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import PetSpotSystem
@testable import PetSpotLocation
import Testing

/// A TCP port that takes connections (the kernel completes them) and says nothing, like a
/// gpsd that has hung; or, told to `answer`, accepts one connection and writes those lines to
/// it, then says nothing more.
final class SilentListener: @unchecked Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw SystemError(errno: errno)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one connection on a thread of its own and writes `lines` to it; the connection
    /// stays open until the process ends.
    func answer(_ lines: String) {
        let fd = fd
        DetachedThread.start(named: "fake-gpsd") {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            try? FileDescriptorIO.write(connection, lines)
        }
    }

    deinit { close(fd) }
}

@Suite("gpsd provider on a manual clock")
struct GpsdProviderTests {
    struct WatchStillRunning: Error {}

    /// Runs `body` with a started provider on `time`, then stops it and waits for its watch
    /// thread to end, so no test after this one finds it still running.
    func withProvider(port: Int, time: ManualTime, _ body: (GpsdProvider) async throws -> Void) async throws {
        let provider = GpsdProvider(settings: .init(host: "127.0.0.1", port: port, pollInterval: .milliseconds(50)),
                                    logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, clock: .manual(time))
        provider.start()
        var failure: (any Error)?
        do { try await body(provider) } catch { failure = error }
        provider.stop()
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.watchThreads() > 0 {
            guard ContinuousClock.now < deadline else { throw WatchStillRunning() }
            try await Task.sleep(for: .milliseconds(10))
        }
        if let failure { throw failure }
    }

    static func watchThreads() -> Int {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return ids.filter { id in
            ((try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? "").hasPrefix("petspotd-gpsd")
        }.count
    }

    @Test("a silent gpsd: a request waits exactly its timeout on the clock, then answers timeout")
    func silentGpsdTimesOut() async throws {
        let listener = try SilentListener()
        let time = ManualTime()
        try await withProvider(port: listener.port, time: time) { provider in
            let answer = Task { await provider.currentFix(timeout: .seconds(30), maxAge: .seconds(2)) }
            try await expectTimeout(of: answer, exactlyAfter: .seconds(30), on: time)
            #expect(await provider.status().state == .disconnected)
        }
        _ = listener
    }

    @Test("a fix is served while it is no older than maxAge, to the nanosecond; older, the request waits for a new one")
    func maxAge() async throws {
        let gpsd = try SilentListener()
        gpsd.answer(#"{"class":"TPV","device":"/dev/fake","mode":2,"time":"2026-11-23T12:00:00.000Z","lat":52.2296756,"lon":21.0122287}"# + "\n")
        let time = ManualTime()
        try await withProvider(port: gpsd.port, time: time) { provider in
            // The one fix this gpsd sends, once it is there. Asked with no timeout, a request
            // answers at once: a fix young enough, or timeout (never a wait on the manual clock).
            let connected = ContinuousClock.now
            var first = await provider.currentFix(timeout: .zero, maxAge: .seconds(2))
            while first == .timeout, connected.duration(to: .now) < .seconds(10) {
                try await Task.sleep(for: .milliseconds(10))
                first = await provider.currentFix(timeout: .zero, maxAge: .seconds(2))
            }
            guard case .fix(let fix) = first else {
                Issue.record("expected a fix, got \(first)")
                return
            }
            #expect(fix.time == "2026-11-23T12:00:00Z")
            time.advance(by: .seconds(2))
            #expect(await provider.currentFix(timeout: .zero, maxAge: .seconds(2)) == .fix(fix))
            #expect(await provider.status().lastFixAgeMs == 2000)
            time.advance(by: .nanoseconds(1))
            let stale = Task { await provider.currentFix(timeout: .seconds(30), maxAge: .seconds(2)) }
            try await time.waitForSleepers(1)
            time.advance(by: .seconds(30))
            #expect(await stale.value == .timeout)
            // A request allowing an older fix still gets it.
            #expect(await provider.currentFix(timeout: .zero, maxAge: .seconds(60)) == .fix(fix))
        }
    }
}
