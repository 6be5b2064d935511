#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotClient
import PetSpotJSON

/// Three ways to learn the position on the same gpsd, timed per request:
/// the daemon's `location.current` from its warm watch, a fresh gpsd connection per request
/// (connect, watch, wait for a TPV fix, close), and gpsd's own `?POLL;` on an open connection.
enum GpsdBenchmark {
    struct Timings {
        var samples: [Double] = []  // milliseconds
        var failures = 0

        mutating func time(_ body: () throws -> Bool) {
            let start = ContinuousClock.now
            let ok = (try? body()) ?? false
            let elapsed = start.duration(to: .now)
            if ok {
                samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            } else {
                failures += 1
            }
        }

        func row(_ name: String) -> String {
            let sorted = samples.sorted()
            func pct(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            let mean = sorted.isEmpty ? Double.nan : sorted.reduce(0, +) / Double(sorted.count)
            return String(format: "| %@ | %d | %.3f | %.3f | %.3f | %.3f | %d |", name, sorted.count, mean, pct(0.5), pct(0.99), sorted.last ?? .nan, failures)
        }
    }

    static func run(socket: String, gpsd: String, requests: Int, naiveRequests: Int) {
        guard let colon = gpsd.lastIndex(of: ":"), let port = UInt16(gpsd[gpsd.index(after: colon)...]) else { fail("--gpsd-bench takes HOST:PORT") }
        let host = String(gpsd[..<colon])

        var warm = Timings()
        guard let conn = try? PetSpotConnection(socketPath: socket) else { fail("cannot connect to \(socket)") }
        // Wait until the watch has its fix before timing starts.
        let ready = ContinuousClock.now.advanced(by: .seconds(30))
        while ContinuousClock.now < ready {
            if (try? conn.call("location.current", ["timeoutMs": 5_000]).get()["location"]?["status"]) == "ok" { break }
        }
        for _ in 0..<requests {
            warm.time {
                try conn.call("location.current", ["timeoutMs": 2_000]).get()["location"]?["status"] == "ok"
            }
        }

        var naive = Timings()
        for _ in 0..<naiveRequests {
            naive.time {
                let line = try GpsdLineConnection(host: host, port: port)
                try line.send("?WATCH={\"enable\":true,\"json\":true};\n")
                while let message = try line.readLine() {
                    if message.contains("\"class\":\"TPV\""), let mode = try? JSONParser.parse(message)["mode"],
                       case .number(let n) = mode, (n.exactInt ?? 0) >= 2
                    {
                        return true
                    }
                }
                return false
            }
        }

        var poll = Timings()
        if let line = try? GpsdLineConnection(host: host, port: port) {
            try? line.send("?WATCH={\"enable\":true};\n")
            // Let gpsd see a fix on this connection's watch before polling.
            Thread.sleep(forTimeInterval: 1.5)
            while (try? line.readLine(timeoutMs: 50)) != nil {}
            for _ in 0..<requests {
                poll.time {
                    try line.send("?POLL;\n")
                    while let message = try line.readLine() {
                        if message.contains("\"class\":\"POLL\"") { return message.contains("\"mode\":2") || message.contains("\"mode\":3") }
                    }
                    return false
                }
            }
        }

        print("| way | requests | mean ms | p50 ms | p99 ms | max ms | failed |")
        print("|---|---|---|---|---|---|---|")
        print(warm.row("petspotd `location.current` (warm watch)"))
        print(naive.row("naive: connect, watch, first fix, close"))
        print(poll.row("gpsd `?POLL;` on an open connection"))
    }
}

/// A line-oriented TCP connection to gpsd with blocking reads bounded by a timeout.
final class GpsdLineConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(host: String, port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = port.bigEndian
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else {
            close(fd)
            throw ClientError("cannot connect to gpsd at \(host):\(port)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw ClientError("writing to gpsd failed")
        }
    }

    /// The next line, nil when nothing came within the timeout.
    func readLine(timeoutMs: Int32 = 5_000) throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeoutMs) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw ClientError("gpsd closed the connection") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
