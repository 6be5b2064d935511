#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import PetSpotFlow
import PetSpotSystem
@testable import PetSpotLocation
import PetSpotViews
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

    /// Waits up to ten seconds for the provider's connection and returns it, for a test that
    /// writes its lines one at a time between steps of its clock.
    func accepted() async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 0) == 1 {
                let connection = accept(fd, nil, nil)
                try #require(connection >= 0)
                return connection
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SystemError(errno: ETIMEDOUT)
    }

    deinit { close(fd) }
}

/// Serialized, and with a thread name of their own: each test waits for the watch threads it
/// started to end, which it could not tell apart from another test's, or the daemon's in
/// DaemonLifecycleTests, running beside it.
@Suite("gpsd provider on a manual clock", .serialized)
struct GpsdProviderTests {
    struct WatchStillRunning: Error {}
    static let threadName = "test-gpsd-watch"

    /// Runs `body` with a started provider on `time`, then stops it and waits for its watch
    /// thread to end, so no test after this one finds it still running.
    func withProvider(port: Int, time: ManualTime, _ body: (GpsdProvider) async throws -> Void) async throws {
        let provider = GpsdProvider(settings: .init(host: "127.0.0.1", port: port, pollInterval: .milliseconds(50), threadName: Self.threadName),
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
            ((try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? "").hasPrefix(threadName)
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

    /// The newest fix the provider has, whatever its age, once `matches` says it is the one
    /// expected; nil if none matched within ten seconds.
    func fix(of provider: GpsdProvider, where matches: (LocationFix) -> Bool) async throws -> LocationFix? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if case .fix(let fix) = await provider.currentFix(timeout: .zero, maxAge: .seconds(3600)), matches(fix) { return fix }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    @Test("two reports of one fix time: the latest is served, aged from the first; a new time is fresh again")
    func sameFixTime() async throws {
        let gpsd = try SilentListener()
        let time = ManualTime()
        func tpv(_ second: Int, _ latitude: String) -> String {
            #"{"class":"TPV","device":"/dev/fake","mode":3,"time":"2026-11-23T12:00:0\#(second).000Z","lat":\#(latitude),"lon":21.0122287}"# + "\n"
        }
        try await withProvider(port: gpsd.port, time: time) { provider in
            let connection = try await gpsd.accepted()
            defer { close(connection) }
            try FileDescriptorIO.write(connection, tpv(0, "52.2296756"))
            let first = try #require(try await fix(of: provider) { $0.latitude.text == "52.22968" })
            #expect(await provider.currentFix(timeout: .zero, maxAge: .seconds(2)) == .fix(first))

            // A chartplotter's GGA after its RMC, 2.8 m north, of the same time: served.
            time.advance(by: .milliseconds(1500))
            try FileDescriptorIO.write(connection, tpv(0, "52.2297"))
            let latest = try #require(try await fix(of: provider) { $0.latitude.text == "52.22970" })
            #expect(latest.time == first.time)

            // Its age counts from the first report of that time, not from the repeat.
            time.advance(by: .milliseconds(500))
            #expect(await provider.currentFix(timeout: .zero, maxAge: .seconds(2)) == .fix(latest))
            time.advance(by: .nanoseconds(1))
            #expect(await provider.currentFix(timeout: .zero, maxAge: .seconds(2)) == .timeout)
            #expect(await provider.status().lastFixAgeMs == 2000)

            // The next fix time is a new fix, fresh again.
            try FileDescriptorIO.write(connection, tpv(1, "52.2298"))
            let next = try #require(try await fix(of: provider) { $0.latitude.text == "52.22980" })
            #expect(await provider.currentFix(timeout: .zero, maxAge: .zero) == .fix(next))
        }
    }
}
