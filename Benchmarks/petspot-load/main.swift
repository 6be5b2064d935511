// Load generator for petspotd: measures `flow.get` throughput over many connections and the
// daemon's memory with many open flows. Figures and commands are in docs/PERFORMANCE.md.
//
//   petspot-load --socket run/petspotd.sock --connections 64 --seconds 10 --depth 8
//   petspot-load --socket run/petspotd.sock --method daemon.info --depth 1
//   petspot-load --socket echo.sock --echo --method flow.get   (a line echo server: the same lines)
//   petspot-load --socket run/petspotd.sock --open-flows 10000 [--view]
//   petspot-load --socket run/petspotd.sock --gpsd-bench 127.0.0.1:2947 --requests 200
//   petspot-load --socket run/petspotd.sock --submits --connections 16 --seconds 10
//   petspot-load --socket run/petspotd.sock --submits --reports 10000   (exactly that many, then stop)
//   petspot-load --socket run/petspotd.sock --submits --prepared 500 --connections 16   (flow.submit alone)
//   petspot-load --socket run/petspotd.sock --changes reports.close --prepared 500 --connections 16   (a change alone: close, amend, renew)
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotClient
import PetSpotJSON
import Synchronization

struct Options {
    var socket = PetSpotConnection.defaultSocketPath()
    var connections = 64
    var seconds = 10.0
    var depth = 8
    var openFlows = 0
    /// With --open-flows: ask for each flow once after starting it.
    var view = false
    var gpsdBench: String?
    var requests = 200
    var naiveRequests = 20
    /// `flow.get` (on a flow of its own per connection) or `daemon.info`.
    var method = "flow.get"
    /// The server only echoes lines: send the same request lines, start no flow.
    var echo = false
    var submits = false
    /// With --submits: stop after this many reports rather than after --seconds.
    var reports: Int?
    /// With --submits: take this many flows per connection to their summary first, then time only the submits.
    var prepared: Int?
    /// A report's change to time alone, over reports filed first (`--prepared` per connection).
    var changes: String?

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--socket": o.socket = value()
            case "--connections": o.connections = Int(value()) ?? o.connections
            case "--seconds": o.seconds = Double(value()) ?? o.seconds
            case "--depth": o.depth = Int(value()) ?? o.depth
            case "--open-flows": o.openFlows = Int(value()) ?? 0
            case "--view": o.view = true
            case "--gpsd-bench": o.gpsdBench = value()
            case "--requests": o.requests = Int(value()) ?? o.requests
            case "--naive-requests": o.naiveRequests = Int(value()) ?? o.naiveRequests
            case "--method":
                o.method = value()
                guard ["flow.get", "daemon.info"].contains(o.method) else { fail("--method is flow.get or daemon.info") }
            case "--echo": o.echo = true
            case "--submits": o.submits = true
            case "--changes":
                let change = value()
                guard ["reports.close", "reports.amend", "reports.renew"].contains(change) else { fail("--changes takes reports.close, reports.amend or reports.renew") }
                o.changes = change
            case "--reports":
                guard let n = Int(value()), n > 0 else { fail("--reports needs a positive whole number") }
                o.reports = n
            case "--prepared":
                guard let n = Int(value()), n > 0 else { fail("--prepared needs a positive whole number") }
                o.prepared = n
            default: fail("unknown option \(args[i])")
            }
            i += 1
        }
        return o
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("petspot-load: \(message)\n".utf8))
    exit(2)
}

/// The daemon's pid from the socket peer, and its memory from /proc.
func daemonMemory(_ conn: PetSpotConnection) -> (rssKiB: Int, peakKiB: Int) {
    var cred = (pid: Int32(0), uid: UInt32(0), gid: UInt32(0))
    var length = socklen_t(MemoryLayout.size(ofValue: cred))
    conn.withDescriptor { fd in _ = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) }
    let status = (try? String(contentsOfFile: "/proc/\(cred.pid)/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Int {
        status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? -1
    }
    return (field("VmRSS"), field("VmHWM"))
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))

if let gpsd = options.gpsdBench {
    GpsdBenchmark.run(socket: options.socket, gpsd: gpsd, requests: options.requests, naiveRequests: options.naiveRequests)
    exit(0)
}

if let change = options.changes {
    SubmitBenchmark.runChanges(change, socket: options.socket, connections: options.connections, reportsEach: options.prepared ?? 200)
    exit(0)
}

if options.submits {
    SubmitBenchmark.run(socket: options.socket, connections: options.connections, seconds: options.seconds, reports: options.reports,
                        prepared: options.prepared)
    exit(0)
}

if options.openFlows > 0 {
    let conn = (try? PetSpotConnection(socketPath: options.socket)) ?? { fail("cannot connect to \(options.socket)") }()
    let before = daemonMemory(conn)
    let start = ContinuousClock.now
    // Pipelined in batches of 100 lines: the daemon answers in order.
    var opened = 0
    while opened < options.openFlows {
        let n = min(100, options.openFlows - opened)
        var lines: [UInt8] = []
        for i in 0..<n { lines += Array("{\"id\":\(opened + i),\"method\":\"flow.start\"}\n".utf8) }
        do {
            try conn.send(lines)
            var ids: [String] = []
            for _ in 0..<n {
                guard let answer = try conn.readValue(), let id = answer["result"]?["flow"]?["id"]?.stringValue else {
                    fail("flow.start failed (is --limit maxFlowsPerUser high enough?)")
                }
                ids.append(id)
            }
            if options.view {
                // Each flow asked for once, as a client showing it does: the daemon keeps its view.
                try conn.send(ids.flatMap { Array("{\"id\":0,\"method\":\"flow.get\",\"params\":{\"flowId\":\"\($0)\"}}\n".utf8) })
                for _ in ids {
                    guard let answer = try conn.readValue(), answer["result"] != nil else { fail("flow.get failed") }
                }
            }
        } catch {
            fail("\(error)")
        }
        opened += n
    }
    let elapsed = start.duration(to: .now)
    let after = daemonMemory(conn)
    print("open flows\(options.view ? ", each viewed once" : ""): \(opened) in \(elapsed)")
    print("daemon RSS before: \(before.rssKiB) KiB, after: \(after.rssKiB) KiB, peak: \(after.peakKiB) KiB")
    print(String(format: "per flow: %.2f KiB", Double(after.rssKiB - before.rssKiB) / Double(opened)))
    exit(0)
}

// Throughput: each connection keeps `depth` requests in flight (`flow.get` on its own flow, or
// `daemon.info`), and times each window of `depth` answers from send to the last one read.
let total = Atomic<Int>(0)
let failures = Atomic<Int>(0)
let latencies = Mutex<[Int64]>([])
let deadline = Date().addingTimeInterval(options.seconds)
let memoryProbe = options.echo ? nil : (try? PetSpotConnection(socketPath: options.socket)) ?? { fail("cannot connect to \(options.socket)") }()
let clock = ContinuousClock()
let began = clock.now
/// One blocking client per thread: the server sees `connections` truly concurrent clients.
func runClient() {
    guard let conn = try? PetSpotConnection(socketPath: options.socket) else {
        failures.add(1, ordering: .relaxed)
        return
    }
    var flowID: String?
    if options.method == "flow.get" {
        if options.echo {
            // The same line as the daemon gets: an id of the same length.
            flowID = "00000000-0000-4000-8000-000000000000"
        } else {
            guard let flow = try? conn.call("flow.start").get(), let id = flow["flow"]?["id"]?.stringValue else {
                failures.add(1, ordering: .relaxed)
                return
            }
            flowID = id
        }
    }
    let line = flowID.map { "{\"id\":1,\"method\":\"flow.get\",\"params\":{\"flowId\":\"\($0)\"}}\n" }
        ?? "{\"id\":1,\"method\":\"daemon.info\"}\n"
    let request = Array(line.utf8)
    var window: [UInt8] = []
    for _ in 0..<options.depth { window += request }
    var done = 0
    var mine: [Int64] = []
    mine.reserveCapacity(1 << 16)
    do {
        while Date() < deadline {
            let sent = clock.now
            try conn.send(window)
            for _ in 0..<options.depth {
                guard let line = try conn.readLine(), line.count > 20 else { throw ClientError("short answer") }
            }
            let took = sent.duration(to: clock.now).components
            mine.append(took.seconds * 1_000_000_000 + took.attoseconds / 1_000_000_000)
            done += options.depth
        }
        if let flowID, !options.echo { _ = try conn.call("flow.cancel", ["flowId": .string(flowID)]) }
    } catch {
        failures.add(1, ordering: .relaxed)
    }
    total.add(done, ordering: .relaxed)
    latencies.withLock { $0 += mine }
}

let finished = DispatchGroup()
for _ in 0..<options.connections {
    finished.enter()
    let thread = Thread {
        runClient()
        finished.leave()
    }
    thread.stackSize = 256 * 1024
    thread.start()
}
finished.wait()
let seconds = Double(began.duration(to: clock.now).components.seconds) + Double(began.duration(to: clock.now).components.attoseconds) / 1e18
print("\(options.echo ? "echo of " : "")\(options.method), connections: \(options.connections), depth: \(options.depth), seconds: \(String(format: "%.1f", seconds))")
print("answered: \(total.load(ordering: .relaxed)), failures: \(failures.load(ordering: .relaxed))")
print(String(format: "throughput: %.0f req/s", Double(total.load(ordering: .relaxed)) / seconds))
let sorted = latencies.withLock { $0.sorted() }
if !sorted.isEmpty {
    func percentile(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6 }
    // With depth > 1 a sample is a whole window: from sending `depth` requests to the last answer.
    print(String(format: "latency ms (per window of %d): p50 %.3f p99 %.3f max %.3f", options.depth, percentile(0.5), percentile(0.99), percentile(1)))
}
if let memoryProbe {
    let memory = daemonMemory(memoryProbe)
    print("daemon RSS: \(memory.rssKiB) KiB, peak: \(memory.peakKiB) KiB")
}
