#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotClient
import PetSpotJSON
import Synchronization

/// Durable submits: each connection files whole reports in a closed loop. The steps before the
/// submit go in one write (the daemon answers in order); only the `flow.submit` round trip is
/// timed, from its send to its answer, which comes once the report is durable on disk.
///
/// With `prepared`, each connection first takes that many flows to their summary, untimed; then
/// all connections submit theirs together in a closed loop, and "submits/s" counts `flow.submit`
/// alone: the durable path, without the nine requests that fill a report.
enum SubmitBenchmark {
    /// The update/continue requests that take a new flow to its last step (as Benchmarks/run-footprint.sh).
    static func steps(_ flow: String) -> [UInt8] {
        let values = [
            #"{"chipNumber":"616091234567890"}"#, nil,
            #"{"species":"dog","race":"Beagle","gender":"male","latitude":52.22968,"longitude":21.01223}"#,
            #"{"contactEmail":"owner@example.org"}"#,
        ]
        var lines = ""
        for (i, value) in values.enumerated() {
            if let value {
                lines += #"{"id":\#(2 * i),"method":"flow.update","params":{"flowId":"\#(flow)","values":\#(value)}}"# + "\n"
            }
            lines += #"{"id":\#(2 * i + 1),"method":"flow.continue","params":{"flowId":"\#(flow)"}}"# + "\n"
        }
        return Array(lines.utf8)
    }

    /// With `reports`, files exactly that many (to fill a daemon for Benchmarks/run-relay.sh) and
    /// ignores `seconds`.
    static func run(socket: String, connections: Int, seconds: Double, reports: Int? = nil, prepared: Int? = nil) {
        if let prepared {
            runPrepared(socket: socket, connections: connections, flowsEach: prepared)
            return
        }
        let latencies = Mutex<[Duration]>([])
        let failures = Atomic<Int>(0)
        let tickets = Atomic<Int>(0)
        let clock = ContinuousClock()
        let deadline = clock.now + (reports == nil ? .milliseconds(Int(seconds * 1000)) : .seconds(86_400))
        let began = clock.now
        let finished = DispatchGroup()
        for _ in 0..<connections {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                var mine: [Duration] = []
                defer { latencies.withLock { $0 += mine } }
                guard let conn = try? PetSpotConnection(socketPath: socket) else {
                    failures.add(1, ordering: .relaxed)
                    return
                }
                do {
                    while clock.now < deadline {
                        if let reports, tickets.add(1, ordering: .relaxed).newValue > reports { break }
                        mine.append(try timedSubmit(fillFlow(conn), on: conn))
                    }
                } catch {
                    FileHandle.standardError.write(Data("petspot-load: \(error)\n".utf8))
                    failures.add(1, ordering: .relaxed)
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        finished.wait()
        printFigures(connections: connections, elapsed: began.duration(to: clock.now), latencies: latencies.withLock { $0 },
               failures: failures.load(ordering: .relaxed))
    }

    /// Submits `flow`; returns how long until the answer came, which is once the report is durable.
    static func timedSubmit(_ flow: String, on conn: PetSpotConnection) throws -> Duration {
        let clock = ContinuousClock()
        let sent = clock.now
        let report = try conn.call("flow.submit", ["flowId": .string(flow)]).get()
        let took = sent.duration(to: clock.now)
        guard report["report"]?["id"] != nil else { throw ClientError("flow.submit gave no report") }
        return took
    }

    /// Starts a flow and takes it to its summary; returns its id.
    static func fillFlow(_ conn: PetSpotConnection) throws -> String {
        guard let flow = try conn.call("flow.start").get()["flow"]?["id"]?.stringValue else {
            throw ClientError("flow.start gave no flow id")
        }
        try conn.send(steps(flow))
        for _ in 0..<7 {
            guard let answer = try conn.readValue(), answer["result"] != nil else {
                throw ClientError("a step before the submit failed")
            }
        }
        return flow
    }

    /// flow.submit alone: each connection's flows are taken to their summary first.
    static func runPrepared(socket: String, connections: Int, flowsEach: Int) {
        runTimed(socket: socket, connections: connections, what: "flow.submit", prepare: { conn in
            try (0..<flowsEach).map { _ in try fillFlow(conn) }
        }, timed: timedSubmit)
        print("flows prepared before the clock started: \(flowsEach) per connection")
    }

    /// A report's change alone (`reports.close`, `reports.amend`, `reports.renew`), each a
    /// durable write as a submit is: each connection files `reportsEach` reports first, untimed,
    /// then changes each of them once.
    static func runChanges(_ change: String, socket: String, connections: Int, reportsEach: Int) {
        runTimed(socket: socket, connections: connections, what: change, prepare: { conn in
            try (0..<reportsEach).map { _ in
                guard let id = try conn.call("flow.submit", ["flowId": .string(try fillFlow(conn))]).get()["report"]?["id"]?.stringValue else {
                    throw ClientError("flow.submit gave no report")
                }
                return id
            }
        }, timed: { report, conn in
            let params: JSONObject = switch change {
            case "reports.close": ["reportId": .string(report), "outcome": "found"]
            case "reports.amend": ["reportId": .string(report), "values": ["contactPhone": "+48 601 234 999"]]
            default: ["reportId": .string(report)]
            }
            let clock = ContinuousClock()
            let sent = clock.now
            let changed = try conn.call(change, params).get()
            let took = sent.duration(to: clock.now)
            guard case .number(let version)? = changed["report"]?["version"], version.exactInt == 2 else { throw ClientError("\(change) did not change the report: \(changed)") }
            return took
        })
        print("reports filed before the clock started: \(reportsEach) per connection")
    }

    /// Every connection prepares its items, untimed; then all go at once in a closed loop, and
    /// each item's `timed` round trip is counted.
    private static func runTimed(socket: String, connections: Int, what: String, prepare: @escaping @Sendable (PetSpotConnection) throws -> [String],
                                 timed: @escaping @Sendable (String, PetSpotConnection) throws -> Duration) {
        let latencies = Mutex<[Duration]>([])
        let failures = Atomic<Int>(0)
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let clock = ContinuousClock()
        for _ in 0..<connections {
            ready.enter()
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                var mine: [Duration] = []
                defer { latencies.withLock { $0 += mine } }
                var items: [String] = []
                var conn: PetSpotConnection?
                do {
                    let opened = try PetSpotConnection(socketPath: socket)
                    conn = opened
                    items = try prepare(opened)
                } catch {
                    FileHandle.standardError.write(Data("petspot-load: preparing: \(error)\n".utf8))
                    failures.add(1, ordering: .relaxed)
                }
                ready.leave()
                go.wait()
                guard let conn else { return }
                do {
                    for item in items { mine.append(try timed(item, conn)) }
                } catch {
                    FileHandle.standardError.write(Data("petspot-load: \(error)\n".utf8))
                    failures.add(1, ordering: .relaxed)
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        ready.wait()
        let began = clock.now
        for _ in 0..<connections { go.signal() }
        finished.wait()
        printFigures(connections: connections, elapsed: began.duration(to: clock.now), latencies: latencies.withLock { $0 },
                     failures: failures.load(ordering: .relaxed), what: what)
    }

    private static func printFigures(connections: Int, elapsed: Duration, latencies: [Duration], failures: Int, what: String = "flow.submit") {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> String {
            guard !sorted.isEmpty else { return "-" }
            let d = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
            return String(format: "%.2f ms", ms)
        }
        print("connections: \(connections), seconds: \(String(format: "%.1f", seconds))")
        print("\(what == "flow.submit" ? "reports filed" : "reports changed"): \(sorted.count), failures: \(failures)")
        print(String(format: "\(what == "flow.submit" ? "submits" : "changes"): %.0f /s", Double(sorted.count) / seconds))
        print("\(what) round trip: p50 \(percentile(0.50)), p99 \(percentile(0.99))")
    }
}
