// Load generator for petspotd: measures `flow.get` throughput over many connections and the
// daemon's memory with many open flows. Figures and commands are in docs/PERFORMANCE.md.
//
//   petspot-load --socket run/petspotd.sock --connections 64 --seconds 10 --depth 8
//   petspot-load --socket run/petspotd.sock --open-flows 10000
//   petspot-load --socket run/petspotd.sock --gpsd-bench 127.0.0.1:2947 --requests 200
//   petspot-load --socket run/petspotd.sock --submits --connections 16 --seconds 10
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
    var gpsdBench: String?
    var requests = 200
    var naiveRequests = 20
    var submits = false

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
            case "--gpsd-bench": o.gpsdBench = value()
            case "--requests": o.requests = Int(value()) ?? o.requests
            case "--naive-requests": o.naiveRequests = Int(value()) ?? o.naiveRequests
            case "--submits": o.submits = true
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

if options.submits {
    SubmitBenchmark.run(socket: options.socket, connections: options.connections, seconds: options.seconds)
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
            for _ in 0..<n {
                guard let answer = try conn.readValue(), answer["result"] != nil else { fail("flow.start failed (is --limit maxFlowsPerUser high enough?)") }
            }
        } catch {
            fail("\(error)")
        }
        opened += n
    }
    let elapsed = start.duration(to: .now)
    let after = daemonMemory(conn)
    print("open flows: \(opened) in \(elapsed)")
    print("daemon RSS before: \(before.rssKiB) KiB, after: \(after.rssKiB) KiB, peak: \(after.peakKiB) KiB")
    print(String(format: "per flow: %.2f KiB", Double(after.rssKiB - before.rssKiB) / Double(opened)))
    exit(0)
}

// Throughput: each connection keeps `depth` flow.get requests in flight on its own flow.
let total = Atomic<Int>(0)
let failures = Atomic<Int>(0)
let deadline = Date().addingTimeInterval(options.seconds)
let memoryProbe = (try? PetSpotConnection(socketPath: options.socket)) ?? { fail("cannot connect to \(options.socket)") }()
let clock = ContinuousClock()
let began = clock.now
/// One blocking client per thread: the daemon sees `connections` truly concurrent clients.
func runClient() {
    guard let conn = try? PetSpotConnection(socketPath: options.socket),
          let flow = try? conn.call("flow.start").get(), let id = flow["flow"]?["id"]?.stringValue
    else {
        failures.add(1, ordering: .relaxed)
        return
    }
    let request = Array("{\"id\":1,\"method\":\"flow.get\",\"params\":{\"flowId\":\"\(id)\"}}\n".utf8)
    var window: [UInt8] = []
    for _ in 0..<options.depth { window += request }
    var done = 0
    do {
        while Date() < deadline {
            try conn.send(window)
            for _ in 0..<options.depth {
                guard let line = try conn.readLine(), line.count > 20 else { throw ClientError("short answer") }
            }
            done += options.depth
        }
        _ = try conn.call("flow.cancel", ["flowId": .string(id)])
    } catch {
        failures.add(1, ordering: .relaxed)
    }
    total.add(done, ordering: .relaxed)
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
let memory = daemonMemory(memoryProbe)
print("connections: \(options.connections), depth: \(options.depth), seconds: \(String(format: "%.1f", seconds))")
print("flow.get answered: \(total.load(ordering: .relaxed)), failures: \(failures.load(ordering: .relaxed))")
print(String(format: "throughput: %.0f req/s", Double(total.load(ordering: .relaxed)) / seconds))
print("daemon RSS: \(memory.rssKiB) KiB, peak: \(memory.peakKiB) KiB")
