#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PetSpotTestSupport
import NIOConcurrencyHelpers
import Synchronization

/// A real gpsd without hardware: a socat pty pair, gpsd reading one end, and a feeder writing
/// NMEA (GGA and RMC with valid checksums and the current UTC time) into the other once a
/// second.
final class GpsdFixture {
    let directory: URL
    let port: Int
    let feeder: NMEAFeeder
    private let socat: Process
    private var gpsd: Process?

    init(_ mode: NMEAFeeder.Mode = .fix(latitude: 52.2296756, longitude: 21.0122287)) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-gpsd-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try freeLocalPort()
        let device = directory.appendingPathComponent("gps").path
        let feed = directory.appendingPathComponent("feed").path
        socat = Process()
        socat.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        socat.arguments = ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feed)"]
        socat.standardInput = FileHandle.nullDevice
        socat.standardOutput = FileHandle.nullDevice
        socat.standardError = FileHandle.nullDevice
        try socat.run()
        try waitUntil("socat's pty pair") {
            FileManager.default.fileExists(atPath: device) && FileManager.default.fileExists(atPath: feed)
        }
        feeder = NMEAFeeder(path: feed, mode: mode)
        feeder.start()
        try startGpsd()
    }

    var endpoint: String { "127.0.0.1:\(port)" }

    /// Starts gpsd on the fixture's port and waits until it accepts connections.
    func startGpsd() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/gpsd")
        process.arguments = ["-N", "-n", "-b", "-S", String(port), "-F", directory.appendingPathComponent("ctl").path,
                             directory.appendingPathComponent("gps").path]
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        gpsd = process
        try waitUntil("gpsd to listen on \(port)") { canConnect(port: port) }
    }

    /// SIGKILL: gpsd vanishes as it would on a crash.
    func killGpsd() throws {
        guard let gpsd, gpsd.isRunning else { return }
        kill(gpsd.processIdentifier, SIGKILL)
        try waitUntil("gpsd to die") { !gpsd.isRunning }
        try waitUntil("gpsd's port to close") { !canConnect(port: port) }
    }

    deinit {
        feeder.stop()
        if let gpsd, gpsd.isRunning {
            kill(gpsd.processIdentifier, SIGKILL)
            gpsd.waitUntilExit()
        }
        if socat.isRunning {
            kill(socat.processIdentifier, SIGKILL)
            socat.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Writes one epoch of NMEA a second: a position, or sentences that say "no fix".
final class NMEAFeeder: Sendable {
    struct Position: Sendable {
        var latitude: Double
        var longitude: Double
    }

    enum Mode: Sendable {
        case fix(latitude: Double, longitude: Double)
        case noFix
        case silent
        /// An RMC at one position, then a GGA of the same time at another, as a chartplotter
        /// sends them (gpsd reports each); the time is the clock's, or `frozenAt` every second,
        /// as from a receiver stuck on one time.
        case twoReports(rmc: Position, gga: Position, frozenAt: Date?)
        /// One epoch of `twoReports` at the clock's time, then silence.
        case twoReportsOnce(rmc: Position, gga: Position)
    }

    private let path: String
    private let mode: NIOLockedValueBox<Mode>
    private let stopping = Synchronization.Atomic<Bool>(false)

    init(path: String, mode: Mode) {
        self.path = path
        self.mode = NIOLockedValueBox(mode)
    }

    func set(_ newMode: Mode) {
        mode.withLockedValue { $0 = newMode }
    }

    func start() {
        let thread = Thread { [self] in
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            while !stopping.load(ordering: .relaxed) {
                let current = mode.withLockedValue { mode in
                    defer { if case .twoReportsOnce = mode { mode = .silent } }
                    return mode
                }
                let text = Self.epoch(current, at: Date())
                if !text.isEmpty { try? handle.write(contentsOf: Data(text.utf8)) }
                Thread.sleep(forTimeInterval: 1)  // the receiver's own rate: 1 Hz
            }
            try? handle.close()
        }
        thread.start()
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    static func epoch(_ mode: Mode, at now: Date) -> String {
        var date = now
        if case .twoReports(_, _, let frozen?) = mode { date = frozen }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let time = String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!)
        let day = String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
        func fields(_ p: Position) -> String {
            "\(degreesMinutes(p.latitude, width: 2)),\(p.latitude >= 0 ? "N" : "S"),\(degreesMinutes(p.longitude, width: 3)),\(p.longitude >= 0 ? "E" : "W")"
        }
        func gga(_ p: Position) -> String { "GPGGA,\(time),\(fields(p)),1,08,0.9,100.0,M,40.0,M,," }
        func rmc(_ p: Position) -> String { "GPRMC,\(time),A,\(fields(p)),0.0,0.0,\(day),,,A" }
        let bodies: [String]
        switch mode {
        case .fix(let latitude, let longitude):
            let p = Position(latitude: latitude, longitude: longitude)
            bodies = [gga(p), rmc(p)]
        case .twoReports(let first, let second, _), .twoReportsOnce(let first, let second):
            bodies = [rmc(first), gga(second)]
        case .noFix:
            bodies = ["GPGGA,\(time),,,,,0,00,99.99,,,,,,", "GPRMC,\(time),V,,,,,,,\(day),,,N"]
        case .silent:
            return ""
        }
        return bodies.map { "$\($0)*\(checksum($0))\r\n" }.joined()
    }

    static func checksum(_ body: String) -> String {
        String(format: "%02X", body.utf8.reduce(0) { $0 ^ $1 })
    }

    /// NMEA's ddmm.mmmmm (or dddmm.mmmmm) of a coordinate's magnitude.
    static func degreesMinutes(_ value: Double, width: Int) -> String {
        let magnitude = abs(value)
        let degrees = Int(magnitude)
        let minutes = (magnitude - Double(degrees)) * 60
        return String(format: "%0\(width)d%08.5f", degrees, minutes)
    }
}

func freeLocalPort() throws -> Int {
    let (fd, port) = try loopbackSocket(listening: false)
    close(fd)
    return port
}

/// A TCP socket bound to a port of 127.0.0.1 the kernel picks, listening if asked.
func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SetupFailed(description: "socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(fd, pointer, length) == 0, !listening || listen(fd, 16) == 0 else { return -1 }
            return getsockname(fd, pointer, &length)
        }
    }
    guard bound == 0 else {
        close(fd)
        throw SetupFailed(description: "cannot \(listening ? "listen" : "bind") on 127.0.0.1: \(String(cString: strerror(errno)))")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// Whether something listens on 127.0.0.1:port, read from /proc/net/tcp without connecting.
func isListening(port: Int) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
    let local = String(format: "0100007F:%04X", port)
    return table.split(separator: "\n").contains { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        return fields.count > 3 && fields[1] == local && fields[3] == "0A"
    }
}
