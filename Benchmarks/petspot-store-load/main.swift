// The report store alone: `writers` tasks each submit reports in a closed loop for `seconds`
// into a fresh database, timing each submit from its call to its return (once it is durable).
//   petspot-store-load DATABASE [writers] [seconds]
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotStore

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: petspot-store-load DATABASE [writers] [seconds]")
    exit(64)
}
let path = arguments[1]
let writers = arguments.count > 2 ? Int(arguments[2]) ?? 16 : 16
let seconds = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10

// The wall clock read here, by the program, as petspotd hands its own in.
let store = try await ReportStore(path: path, now: Date(), box: "petspot-store-load")
let clock = ContinuousClock()
let began = clock.now
let deadline = began + .seconds(seconds)
// Values as a whole report holds them, about the size the daemon writes.
let values = #"{"chipNumber":"616091234567890","species":"dog","race":"Beagle","gender":"male","#
    + #""location":{"latitude":52.22968,"longitude":21.01223},"contactEmail":"owner@example.org"}"#
let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
    for writer in 0..<writers {
        group.addTask {
            var mine: [Duration] = []
            var number = 0
            while clock.now < deadline {
                number += 1
                // As the animal list finds it: somewhere in Poland (a new place in the board's
                // R*Tree), a chip of its own, filed now.
                let board = BoardFields(latitude: Int.random(in: 4_900_000...5_484_000), longitude: Int.random(in: 1_412_000...2_415_000),
                                        chipDigits: "616" + String(Int.random(in: 100_000_000_000...999_999_999_999)),
                                        species: writer % 3 == 0 ? "cat" : "dog", publicPhoto: nil)
                let report = NewReport(
                    id: "report-\(writer)-\(number)", flowID: "flow-\(writer)-\(number)", ownerUID: 1000,
                    submittedAt: Date().formatted(Date.ISO8601FormatStyle()), valuesJSON: values, photo: nil, board: board)
                let sent = clock.now
                _ = try await store.submit(report)
                mine.append(sent.duration(to: clock.now))
            }
            return mine
        }
    }
    var all: [Duration] = []
    for try await mine in group { all += mine }
    return all
}.sorted()
let elapsed = began.duration(to: clock.now)
try await store.close()

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}
func percentile(_ p: Double) -> String {
    guard !latencies.isEmpty else { return "-" }
    let ms = milliseconds(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))])
    return "\((ms * 100).rounded() / 100) ms"
}
print("writers: \(writers), reports: \(latencies.count), "
    + "submits: \(Int((Double(latencies.count) / (milliseconds(elapsed) / 1000)).rounded())) /s, "
    + "p50 \(percentile(0.5)), p99 \(percentile(0.99))")
