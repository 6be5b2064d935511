import Foundation
import PetSpotTestSupport
import Testing

/// A real PostgreSQL 15 in its own temporary folder, run as the unprivileged `postgres` user
/// (the tests run as root, which PostgreSQL refuses to be), listening on 127.0.0.1 on a free
/// port, with TLS when asked: a test CA and a server certificate for 127.0.0.1 and localhost,
/// made with openssl. Stop, SIGKILL and start again keep the same data folder. It also listens
/// on 127.0.0.2, an address its certificate does not name.
final class PostgresServer {
    static let binaries = "/usr/lib/postgresql/15/bin"
    let directory: URL
    let dataDirectory: String
    let port: Int
    let logPath: String
    let tls: TLSFiles?
    /// Server settings given at each start (`-c name=value`), never written to the data folder:
    /// a standby copied from it does not inherit them.
    let settings: [String]
    private(set) var process: Process?

    /// The test CA that signed the server's certificate, and a second CA that signed nothing here.
    struct TLSFiles {
        let caCertificate: String
        let otherCACertificate: String
        let serverCertificate: String
        let serverKey: String
    }

    init(tls: Bool = false, settings: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        dataDirectory = directory.appendingPathComponent("data").path
        logPath = directory.appendingPathComponent("postgres.log").path
        port = try Self.freePort()
        self.settings = settings
        try Self.run("/usr/bin/chown", ["postgres:postgres", directory.path])
        try Self.asPostgres(Self.binaries + "/initdb", ["-D", dataDirectory, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        self.tls = tls ? try Self.makeCertificates(in: directory) : nil
        try start()
    }

    /// A hot standby of `primary`, streaming from it (pg_basebackup -R), started; it is
    /// read-only until `promote()`.
    init(standbyOf primary: PostgresServer) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        dataDirectory = directory.appendingPathComponent("data").path
        logPath = directory.appendingPathComponent("postgres.log").path
        port = try Self.freePort()
        settings = []
        tls = nil
        try Self.run("/usr/bin/chown", ["postgres:postgres", directory.path])
        try Self.asPostgres(Self.binaries + "/pg_basebackup", ["-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "postgres",
                                                             "-D", dataDirectory, "-R", "-X", "stream", "--no-sync"])
        try start()
    }

    /// Ends recovery: the standby becomes a primary that takes writes (pg_promote waits for it).
    func promote() throws {
        #expect(try psql("SELECT pg_promote()") == "t")
    }

    /// The URL a relay would be given.
    func url(sslMode: String = "disable", host: String = "127.0.0.1", rootCert: String? = nil, database: String = "postgres") -> String {
        var text = "postgres://postgres@\(host):\(port)/\(database)?sslmode=\(sslMode)"
        if let rootCert { text += "&sslrootcert=\(rootCert)" }
        return text
    }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        var arguments = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", Self.binaries + "/postgres",
                         "-D", dataDirectory, "-k", directory.path, "-h", "127.0.0.1,127.0.0.2", "-p", "\(port)",
                         "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=40"]
        arguments += settings.flatMap { ["-c", $0] }
        if let tls {
            arguments += ["-c", "ssl=on", "-c", "ssl_cert_file=\(tls.serverCertificate)", "-c", "ssl_key_file=\(tls.serverKey)"]
        }
        process.arguments = arguments
        let log = try appendingLog(at: logPath)
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntil("PostgreSQL to accept connections on port \(port)\n\(log)", seconds: 30) {
            guard process.isRunning else { throw TimedOut(description: "postgres exited with \(process.terminationStatus):\n\(self.log)") }
            return (try? self.psql("SELECT 1")) == "1"
        }
    }

    /// Fast shutdown (SIGINT): open sessions are ended, what was committed stays.
    func stop() throws {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGINT)
        try waitUntil("postgres to stop", seconds: 30) { !process.isRunning }
    }

    /// SIGKILL to the postmaster and each of its children, as a crash would leave them.
    func kill() throws {
        guard let process, process.isRunning else { return }
        let postmaster = process.processIdentifier
        let children = Self.children(of: postmaster)
        Foundation.kill(postmaster, SIGKILL)
        for child in children { Foundation.kill(child, SIGKILL) }
        try waitUntil("postgres to die", seconds: 30) {
            !process.isRunning && children.allSatisfy { Foundation.kill($0, 0) != 0 }
        }
    }

    func restart() throws {
        try stop()
        try start()
    }

    /// One statement through psql; its rows as text, fields separated by "|". `quiet`: without
    /// the command tags psql prints for statements that give no rows (several statements).
    @discardableResult
    func psql(_ sql: String, database: String = "postgres", quiet: Bool = false) throws -> String {
        let result = try runProgram("/usr/bin/psql", ["-h", "127.0.0.1,127.0.0.2", "-p", "\(port)", "-U", "postgres", "-d", database,
                                                      "-X", "-At", "-v", "ON_ERROR_STOP=1"] + (quiet ? ["-q"] : []) + ["-c", sql],
                                    environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "5"])
        guard result.status == 0 else { throw TimedOut(description: "psql failed (\(result.status)): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var log: String { logText(at: logPath) }

    deinit {
        try? kill()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TimedOut(description: "cannot bind a free port: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func asPostgres(_ program: String, _ arguments: [String]) throws {
        try run("/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", program] + arguments)
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let result = try runProgram(program, arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        guard result.status == 0 else {
            throw TimedOut(description: "\(program) \(arguments.joined(separator: " ")) failed (\(result.status)):\n\(result.stderr)\(result.stdout)")
        }
    }

    /// A CA, a server certificate it signs (SAN 127.0.0.1 and localhost), and an unrelated CA.
    private static func makeCertificates(in directory: URL) throws -> TLSFiles {
        let dir = directory.appendingPathComponent("tls").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let ssl = "/usr/bin/openssl"
        for ca in ["ca", "other-ca"] {
            try run(ssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=PetSpot test \(ca)",
                          "-keyout", "\(dir)/\(ca).key", "-out", "\(dir)/\(ca).pem"])
        }
        try run(ssl, ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(dir)/san.ext", atomically: true, encoding: .utf8)
        try run(ssl, ["x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.pem", "-CAkey", "\(dir)/ca.key", "-CAcreateserial",
                      "-days", "2", "-extfile", "\(dir)/san.ext", "-out", "\(dir)/server.pem"])
        // PostgreSQL reads its key only when its owner alone may.
        try run("/usr/bin/chown", ["postgres:postgres", "\(dir)/server.key", "\(dir)/server.pem"])
        chmod("\(dir)/server.key", 0o600)
        return TLSFiles(caCertificate: "\(dir)/ca.pem", otherCACertificate: "\(dir)/other-ca.pem",
                        serverCertificate: "\(dir)/server.pem", serverKey: "\(dir)/server.key")
    }
}

extension PostgresServer {
    /// Holds table `reports` locked from another session, so that a relay's next write waits
    /// inside PostgreSQL: a batch caught between claim and commit, on purpose.
    func lockReports() throws -> Process {
        try waitUntil("table reports to exist") { try psql("SELECT to_regclass('reports') IS NOT NULL") == "t" }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-X", "-q", "-c",
                            "BEGIN; LOCK TABLE reports; SELECT pg_sleep(120); COMMIT;"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        try waitUntil("the lock on reports") {
            try psql("SELECT count(*) FROM pg_locks WHERE relation = 'reports'::regclass AND granted AND mode = 'AccessExclusiveLock'") == "1"
        }
        return holder
    }

    /// Waits until a write into reports waits for the lock.
    func waitForBlockedWrite() throws {
        try waitUntil("a write to wait for the lock on reports") {
            try psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO reports%'") != "0"
        }
    }

    /// Ends the session holding the lock.
    func unlockReports(_ holder: Process) throws {
        try psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%LOCK TABLE reports%' AND pid <> pg_backend_pid()")
        holder.waitUntilExit()
    }
}
