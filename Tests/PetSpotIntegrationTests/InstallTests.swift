import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// `make install` and the units it installs.
@Suite("Installing the system service", .serialized)
struct InstallTests {
    func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-install-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func make(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram("/usr/bin/make", ["-C", Paths.packageRoot.path, "--no-print-directory"] + arguments + ["SWIFT_BIN_DIR=\(Paths.binaries.path)"])
    }

    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    func permissions(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test("make install DESTDIR=… PREFIX=/usr produces the expected tree; uninstall removes it but the configuration")
    func tree() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try make(["install", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(result.status == 0, "\(result)")
        let expected = [
            "usr/sbin/petspotd", "usr/bin/petspot",
            "usr/lib/systemd/system/petspotd.service", "usr/lib/systemd/system/petspotd.socket",
            "usr/lib/sysusers.d/petspotd.conf",
            "usr/share/man/man8/petspotd.8", "usr/share/man/man1/petspot.1",
            "usr/share/bash-completion/completions/petspot", "usr/share/zsh/site-functions/_petspot",
            "usr/share/fish/vendor_completions.d/petspot.fish",
            "usr/share/doc/petspotd/OPERATIONS.md", "usr/share/doc/petspotd/PROTOCOL.md",
            "etc/petspotd/petspotd.json", "etc/petspotd/species.json",
        ]
        for path in expected {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path), "missing \(path)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("usr/sbin/petspotd").path))
        let service = try read(root.appendingPathComponent("usr/lib/systemd/system/petspotd.service"))
        #expect(service.contains("ExecStart=/usr/sbin/petspotd --config /etc/petspotd/petspotd.json"))
        #expect(!service.contains("/usr/local/"))
        let socket = try read(root.appendingPathComponent("usr/lib/systemd/system/petspotd.socket"))
        #expect(socket.contains("ListenStream=/run/petspotd/petspotd.sock"))
        #expect(socket.contains("SocketGroup=petspot") && socket.contains("SocketMode=0660"))
        let sysusers = try read(root.appendingPathComponent("usr/lib/sysusers.d/petspotd.conf"))
        #expect(sysusers.contains("u petspotd") && sysusers.contains("g petspot"))
        #expect(try read(root.appendingPathComponent("usr/share/bash-completion/completions/petspot")).contains("petspot"))

        // The field configuration: gpsd only, never invented coordinates; the petspot group may have a location.
        let config = try JSONParser.parse(try read(root.appendingPathComponent("etc/petspotd/petspotd.json")))
        #expect(config[path: "location", "providers"] == ["gpsd"])
        #expect(config[path: "location", "permission", "groups"] == ["petspot"])
        #expect(config[path: "database", "path"] == "/var/lib/petspotd/reports.sqlite")

        // An edited configuration is never overwritten: the new default lands beside it.
        let installed = root.appendingPathComponent("etc/petspotd/petspotd.json")
        try #"{"log":{"level":"debug"}}"#.write(to: installed, atomically: true, encoding: .utf8)
        let again = try make(["install", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(again.status == 0)
        #expect(try read(installed) == #"{"log":{"level":"debug"}}"#)
        #expect(FileManager.default.fileExists(atPath: installed.path + ".new"))

        let removed = try make(["uninstall", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(removed.status == 0)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/sbin/petspotd").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/lib/systemd/system/petspotd.service").path))
        #expect(FileManager.default.fileExists(atPath: installed.path))
    }

    @Test("the installed units pass systemd-analyze verify, and the configuration starts the daemon")
    func verify() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        // Installed for real under a scratch prefix, so ExecStart= points at a program that exists.
        let result = try make(["install", "PREFIX=\(root.path)/usr", "SYSCONFDIR=\(root.path)/etc"])
        #expect(result.status == 0, "\(result)")
        let units = root.appendingPathComponent("usr/lib/systemd/system")
        let verify = try runProgram("/usr/bin/systemd-analyze", ["verify", "--man=no",
                                                                  units.appendingPathComponent("petspotd.socket").path,
                                                                  units.appendingPathComponent("petspotd.service").path])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "\(verify.stderr)")

        // The installed configuration is valid: it starts, with gpsd as its only provider.
        let config = root.appendingPathComponent("etc/petspotd/petspotd.json").path
        let socket = root.appendingPathComponent("petspotd.sock").path
        let process = Process()
        process.executableURL = root.appendingPathComponent("usr/sbin/petspotd")
        process.arguments = ["--config", config, "--socket", socket, "--database", root.appendingPathComponent("r.sqlite").path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var info: JSONValue = .null
        try waitUntil("the installed configuration to serve") {
            guard let conn = try? PetSpotConnection(socketPath: socket) else { return false }
            info = try conn.result("daemon.info")
            return true
        }
        #expect(info["locationProviders"] == ["gpsd"])
    }

    @Test("make install-relay lays out the relay: program, unit, sysusers.d entry, man page, a configuration kept once edited")
    func relayTree() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try make(["install-relay", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(result.status == 0, "\(result)")
        for path in ["usr/sbin/petspot-relay", "usr/lib/systemd/system/petspot-relay.service",
                     "usr/lib/sysusers.d/petspot-relay.conf", "usr/share/man/man8/petspot-relay.8",
                     "etc/petspot-relay/petspot-relay.json"] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path), "missing \(path)")
        }
        let service = try read(root.appendingPathComponent("usr/lib/systemd/system/petspot-relay.service"))
        #expect(service.contains("ExecStart=/usr/sbin/petspot-relay --config /etc/petspot-relay/petspot-relay.json"))
        #expect(service.contains("User=petspot-relay") && service.contains("SupplementaryGroups=petspot"))
        #expect(!service.contains("/usr/local/"))
        let sysusers = try read(root.appendingPathComponent("usr/lib/sysusers.d/petspot-relay.conf"))
        #expect(sysusers.contains("u petspot-relay") && sysusers.contains("m petspot-relay petspot"))

        // The installed configuration reads as the relay's: the one thing it lacks is the database.
        let installed = root.appendingPathComponent("etc/petspot-relay/petspot-relay.json")
        // It may hold the database's password: nobody but root (and on a live system the
        // relay's group) reads it, also the new default put beside an edited one.
        #expect(try permissions(installed) == 0o640)
        let check = try runProgram(root.appendingPathComponent("usr/sbin/petspot-relay").path,
                                   ["--config", installed.path, "--box", "test"])
        #expect(check.status == 78)
        #expect(check.stderr.contains("no PostgreSQL connection string"), "\(check.stderr)")

        try #"{"batchSize":10}"#.write(to: installed, atomically: true, encoding: .utf8)
        let again = try make(["install-relay", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(again.status == 0)
        #expect(try read(installed) == #"{"batchSize":10}"#)
        #expect(FileManager.default.fileExists(atPath: installed.path + ".new"))
        #expect(try permissions(URL(fileURLWithPath: installed.path + ".new")) == 0o640)

        let removed = try make(["uninstall-relay", "DESTDIR=\(root.path)", "PREFIX=/usr"])
        #expect(removed.status == 0)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/sbin/petspot-relay").path))
        #expect(FileManager.default.fileExists(atPath: installed.path))
    }

    @Test("the relay's installed unit passes systemd-analyze verify")
    func verifyRelay() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try make(["install-relay", "PREFIX=\(root.path)/usr", "SYSCONFDIR=\(root.path)/etc"])
        #expect(result.status == 0, "\(result)")
        let unit = root.appendingPathComponent("usr/lib/systemd/system/petspot-relay.service")
        let verify = try runProgram("/usr/bin/systemd-analyze", ["verify", "--man=no", unit.path])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "\(verify.stderr)")
    }

    @Test("systemd-analyze security rates the daemon 1.2 or safer, the relay (which needs the network and lowers its threads' priority) 1.4 or safer",
          arguments: [("petspotd.service", 1.2), ("petspot-relay.service", 1.4)])
    func exposure(unitName: String, limit: Double) throws {
        let unit = Paths.packageRoot.appendingPathComponent("systemd/\(unitName)")
        let result = try runProgram("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--no-pager", unit.path])
        let line = try #require(result.stdout.split(separator: "\n").last { $0.contains("Overall exposure level for \(unitName):") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= limit, "exposure \(score): \(line)")
    }
}
