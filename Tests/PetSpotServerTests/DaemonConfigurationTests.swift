import Foundation
import Logging
import PetSpotJSON
import PetSpotSettings
import PetSpotSystem
@testable import PetSpotServer
import Testing

@Suite("Daemon configuration")
struct DaemonConfigurationTests {
    static let checkoutConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/petspotd.json").path

    @Test("the checkout's file states exactly the built-in defaults")
    func checkoutDefaults() throws {
        var loaded = try DaemonConfiguration.load(file: Self.checkoutConfig)
        loaded.configFile = ""
        #expect(loaded == DaemonConfiguration())
    }

    @Test("the checkout's file sets every key there is, so it documents them all")
    func everyKeyInCheckoutFile() throws {
        let json = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.checkoutConfig))))
        var keys: [String] = []
        func walk(_ value: JSONValue, _ prefix: String) {
            if case .object(let o) = value, !DaemonConfiguration.knownKeys.contains(prefix) {
                for m in o { walk(m.value, prefix.isEmpty ? m.key : prefix + "." + m.key) }
            } else {
                keys.append(prefix)
            }
        }
        walk(json, "")
        #expect(Set(keys) == Set(DaemonConfiguration.knownKeys))
    }

    @Test("rereading an empty configuration file, as a reload storm does, keeps no memory")
    func emptyFileRereadKeepsNoMemory() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-empty-\(UUID().uuidString).json").path
        try #require(FileManager.default.createFile(atPath: file, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: file) }
        func residentKiB() throws -> Int {
            let statm = String(decoding: try FileDescriptorIO.readFile("/proc/self/statm"), as: UTF8.self)
            return try #require(Int(statm.split(separator: " ")[1])) * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
        }
        let before = try residentKiB()
        for _ in 0..<10_000 {
            #expect(throws: ConfigurationError.self) { try DaemonConfiguration.load(file: file) }
        }
        // A 4 KiB buffer kept per read would be 40 MiB. The margin is for the tests that run
        // beside this one in the same process and allocate meanwhile (spool files of 3 MiB).
        #expect(try residentKiB() - before < 20 * 1024)
    }

    @Test("the service unit's LimitNOFILE fits the default limits.maxConnections")
    func unitDescriptorLimit() throws {
        let unit = try String(contentsOfFile: URL(fileURLWithPath: Self.checkoutConfig).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("systemd/petspotd.service").path, encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("LimitNOFILE=") })
        let limit = try #require(Int(line.dropFirst("LimitNOFILE=".count)))
        #expect(limit >= DaemonConfiguration().limits.maxConnections * FileDescriptorLimit.perConnection + FileDescriptorLimit.headroom)
    }

    @Test("limits.maxPhotoBytesInMemory, the former name, still sets limits.maxSpooledPhotoBytes, nested or dotted")
    func formerName() throws {
        for json: JSONValue in [["limits": ["maxPhotoBytesInMemory": 12345]], ["limits.maxPhotoBytesInMemory": 12345]] {
            var c = DaemonConfiguration()
            try c.apply(json, file: "test")
            #expect(c.limits.maxSpooledPhotoBytes == 12345)
        }
        #expect(!DaemonConfiguration.knownKeys.contains("limits.maxPhotoBytesInMemory"))
    }

    @Test("docs/OPERATIONS.md documents every key")
    func everyKeyDocumented() throws {
        let operations = URL(fileURLWithPath: Self.checkoutConfig).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/OPERATIONS.md")
        let text = try String(contentsOf: operations, encoding: .utf8)
        for key in DaemonConfiguration.knownKeys {
            #expect(text.contains("| `\(key)` |"), "docs/OPERATIONS.md has no row for \(key)")
        }
    }

    @Test("docs/OPERATIONS.md's SIGHUP column says no for exactly the settings a reload does not apply")
    func reloadColumnMatchesTheTable() throws {
        let operations = URL(fileURLWithPath: Self.checkoutConfig).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/OPERATIONS.md")
        var sighup: [String: String] = [:]
        for line in try String(contentsOf: operations, encoding: .utf8).split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 5 else { continue }
            sighup[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[4]
        }
        let restartOnly = Set(DaemonConfiguration.restartOnlyKeys)
        #expect(restartOnly.count == 11)
        for key in DaemonConfiguration.knownKeys {
            #expect(sighup[key] == (restartOnly.contains(key) ? "no" : "yes"), "\(key): SIGHUP column \(sighup[key] ?? "missing")")
        }
    }

    @Test("location.providers accepts exactly the provider table's names, and each name makes the provider of that name")
    func providerTable() throws {
        #expect(SettingParsers.providerNames == LocationProviderFactory.all.map(\.name))
        var c = DaemonConfiguration()
        c.locationProviders = SettingParsers.providerNames
        c.staticPosition = .init(latitude: "52.2297", longitude: "21.0122")
        let service = try RuntimeSettings.makeLocationService(c, clock: .manual(ManualTime()), logger: Logger(label: "test"))
        #expect(service.providerNames == c.locationProviders)
        #expect(SettingParsers.providersProblem(["gpsd", "galileo"]) == "unknown location provider \"galileo\"; known: gpsd, simulated, static")
    }

    @Test("an empty section of the table is accepted and changes nothing; an empty object under any other key is refused")
    func emptyObjects() throws {
        var c = DaemonConfiguration()
        try c.apply(try JSONParser.parse(#"{"limits":{},"location":{"gpsd":{}}}"#), file: "f.json")
        #expect(c.limits.maxFlows == DaemonConfiguration().limits.maxFlows)
        #expect(throws: ConfigurationError(#"f.json: unknown key "limitz""#)) { try c.apply(try JSONParser.parse(#"{"limitz":{}}"#), file: "f.json") }
    }

    @Test("a reload names the restart-only settings that changed, from the settings table, and only those", arguments: [
        (#"{"socket":{"path":"/run/other.sock"}}"#, ["socket.path"]),
        (#"{"limits":{"drainTimeoutSeconds":9,"maxFlows":3}}"#, ["limits.drainTimeoutSeconds"]),
        (#"{"log":{"level":"debug"},"server":{"eventLoopThreads":3},"memory":{"releaseStartupPages":false}}"#,
         ["log.level", "server.eventLoopThreads", "memory.releaseStartupPages"]),
        (#"{"limits":{"maxFlows":3},"location":{"timeoutMs":5}}"#, []),
    ])
    func restartOnlyChanges(file: String, keys: [String]) throws {
        var changed = DaemonConfiguration()
        try changed.apply(try JSONParser.parse(file), file: "f.json")
        #expect(DaemonConfiguration.restartOnlyChanges(from: DaemonConfiguration(), to: changed) == keys)
    }

    @Test("each bad value names the file, the key and the problem", arguments: [
        (#"{"limits":{"maxFlows":0}}"#, "f.json: limits.maxFlows: 0 is out of range 1...10000000"),
        (#"{"limits":{"maxCompletedFlows":-1}}"#, "f.json: limits.maxCompletedFlows: -1 is out of range 0...10000000"),
        (#"{"limits":{"maxCompletedFlows":10000001}}"#, "f.json: limits.maxCompletedFlows: 10000001 is out of range 0...10000000"),
        (#"{"limits":{"maxFlows":1.5}}"#, "f.json: limits.maxFlows: expected a whole number, found 1.5"),
        (#"{"limits":{"maxFlows":"3"}}"#, "f.json: limits.maxFlows: expected a whole number, found a string"),
        (#"{"sokcet":{}}"#, "f.json: unknown key \"sokcet\""),
        (#"{"limits":{"maxFlowz":1}}"#, "f.json: unknown key \"limits.maxFlowz\""),
        (#"{"limit":{"maxFlows":1}}"#, "f.json: unknown key \"limit.maxFlows\""),
        (#"{"socket":"x"}"#, "f.json: unknown key \"socket\"; did you mean \"socket.path\"?"),
        (#"{"socket":{"mode":"0999"}}"#, "f.json: socket.mode: \"0999\" is not an octal file mode"),
        (#"{"location":{"enabled":"yes"}}"#, "f.json: location.enabled: expected true or false, found a string"),
        (#"{"location":{"providers":["gpsd","gpsd"]}}"#, "f.json: location.providers: a provider is listed twice"),
        (#"{"location":{"simulated":{"position":[91,0]}}}"#, "f.json: location.simulated.position: latitude 91 is not a number from -90 to 90"),
        (#"{"location":{"simulated":{"mode":"fixed"}}}"#, "f.json: location.simulated.mode: \"fixed\" is not one of"),
        (#"{"timeZone":"Nowhere/City"}"#, "f.json: timeZone: unknown time zone \"Nowhere/City\""),
        (#"{"limits":{"drainTimeoutSeconds":0}}"#, "f.json: limits.drainTimeoutSeconds: 0 is out of range 1...3600"),
        (#"{"limits":{"drainTimeoutSeconds":3601}}"#, "f.json: limits.drainTimeoutSeconds: 3601 is out of range 1...3600"),
        (#"{"limits":{"maxKeptViewBytes":-1}}"#, "f.json: limits.maxKeptViewBytes: -1 is out of range 0...1073741824"),
        (#"{"limits":{"maxKeptViewBytes":1073741825}}"#, "f.json: limits.maxKeptViewBytes: 1073741825 is out of range 0...1073741824"),
        (#"{"server":{"eventLoopThreads":-1}}"#, "f.json: server.eventLoopThreads: -1 is out of range 0...256"),
        (#"{"server":{"eventLoopThreads":257}}"#, "f.json: server.eventLoopThreads: 257 is out of range 0...256"),
        (#"{"memory":{"releaseStartupPagesAfterSeconds":0}}"#, "f.json: memory.releaseStartupPagesAfterSeconds: 0 is out of range 1...3600"),
        (#"{"memory":{"releaseStartupPagesAfterSeconds":3601}}"#, "f.json: memory.releaseStartupPagesAfterSeconds: 3601 is out of range 1...3600"),
        (#"{"relay":{"claimTimeoutSeconds":0}}"#, "f.json: relay.claimTimeoutSeconds: 0 is out of range 1...86400"),
        (#"{"relay":{"claimTimeoutSeconds":86401}}"#, "f.json: relay.claimTimeoutSeconds: 86401 is out of range 1...86400"),
        (#"{"relay":{"maxClaimReports":0}}"#, "f.json: relay.maxClaimReports: 0 is out of range 1...10000"),
        (#"{"relay":{"maxClaimReports":10001}}"#, "f.json: relay.maxClaimReports: 10001 is out of range 1...10000"),
        (#"{"relay":{"maxClaimBytes":1048575}}"#, "f.json: relay.maxClaimBytes: 1048575 is out of range 1048576...268435456"),
        (#"{"relay":{"maxClaimBytes":268435457}}"#, "f.json: relay.maxClaimBytes: 268435457 is out of range 1048576...268435456"),
        (#"{"relay":{"group":""}}"#, "f.json: relay.group: must not be empty"),
        (#"{"relay":{"group":7}}"#, "f.json: relay.group: expected a string, found a number"),
        (#"{"relay":{"group":"a\u0000b"}}"#, "f.json: relay.group: a group name cannot contain a NUL character"),
        (#"[]"#, "f.json: the configuration must be a JSON object"),
    ])
    func badValues(text: String, message: String) throws {
        var configuration = DaemonConfiguration()
        #expect {
            try configuration.apply(try JSONParser.parse(text), file: "f.json")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    // Found by Fuzz/fuzz-config: a name or value of the file echoed as it is split the message.
    @Test("a refusal stays one line when the file's names or values hold control characters", arguments: [
        (#"{"socket":{"path\n":"x"}}"#, #"f.json: unknown key "socket.path\n""#),
        (#"{"log":{"level":"info\r\nforged"}}"#, #"f.json: log.level: "info\r\nforged" is not one of"#),
        (#"{"location":{"providers":["gpsd\u0000\u001b[2J"]}}"#, #"f.json: location.providers: unknown location provider "gpsd\u0000\u001b[2J""#),
    ])
    func refusalIsOneLine(text: String, message: String) throws {
        var configuration = DaemonConfiguration()
        #expect {
            try configuration.apply(try JSONParser.parse(text), file: "f.json")
        } throws: { error in
            let shown = "\(error)"
            return shown.hasPrefix(message) && !shown.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
    }

    @Test("every limit is in the table once, and only the table sets it: no property of Limits is left out")
    func limitsTable() {
        let properties = Mirror(reflecting: DaemonConfiguration.Limits()).children.compactMap(\.label)
        #expect(properties == DaemonConfiguration.Limits.table.map(\.name))
        #expect(Set(properties).count == properties.count)
        for limit in DaemonConfiguration.Limits.table {
            #expect(DaemonConfiguration.Limits()[keyPath: limit.keyPath] == limit.defaultValue, "\(limit.name)")
            #expect(limit.range.contains(limit.defaultValue), "\(limit.name)'s default is out of its range")
        }
    }

    @Test("each limit of the table is a key of the file and of --limit, accepted at both ends of its range and refused one past each, naming it")
    func limitEdges() throws {
        for limit in DaemonConfiguration.Limits.table {
            #expect(DaemonConfiguration.knownKeys.contains(limit.key))
            #expect(DaemonConfiguration.restartOnlyKeys.contains(limit.key) == !limit.reloadable, "\(limit.key)")
            for edge in [limit.range.lowerBound, limit.range.upperBound] {
                var configuration = DaemonConfiguration()
                try configuration.apply(["limits": [limit.name: .int(edge)]], file: "f.json")
                #expect(configuration.limits[keyPath: limit.keyPath] == edge, "\(limit.key)")
            }
            for outside in [limit.range.lowerBound - 1, limit.range.upperBound + 1] {
                var configuration = DaemonConfiguration()
                #expect {
                    try configuration.apply(["limits": [limit.name: .int(outside)]], file: "f.json")
                } throws: { "\($0)" == "f.json: \(limit.key): \(outside) is out of range \(limit.range)" }
            }
        }
    }

    @Test("docs/OPERATIONS.md's table of limits is the table's rows, in its order")
    func limitsDocumented() throws {
        let text = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        let documented = text.split(separator: "\n").filter { $0.hasPrefix("| `limits.") }.map(String.init)
        let expected = DaemonConfiguration.Limits.table.map(\.documentationRow)
        #expect(documented == expected, "OPERATIONS.md's rows should be:\n\(expected.joined(separator: "\n"))")
    }

    @Test("relay settings at their edges are accepted", arguments: [
        ("claimTimeoutSeconds", 1), ("claimTimeoutSeconds", 86_400), ("maxClaimReports", 1), ("maxClaimReports", 10_000),
        ("maxClaimBytes", 1_048_576), ("maxClaimBytes", 268_435_456),
    ])
    func relayEdges(key: String, value: Int) throws {
        var configuration = DaemonConfiguration()
        try configuration.apply(["relay": [key: .int(value)]], file: "f.json")
        let relay = configuration.relay
        #expect([relay.claimTimeoutSeconds, relay.maxClaimReports, relay.maxClaimBytes].contains(value))
    }

    @Test("event loop threads at their edges; 0, the default, is one per core")
    func eventLoopEdges() throws {
        var configuration = DaemonConfiguration()
        #expect(configuration.eventLoops(cores: 2) == 2)
        #expect(configuration.eventLoops(cores: 8) == 8)
        try configuration.apply(["server": ["eventLoopThreads": 256]], file: "f.json")
        #expect(configuration.eventLoops(cores: 2) == 256)
        try configuration.apply(["server": ["eventLoopThreads": 1]], file: "f.json")
        #expect(configuration.eventLoops(cores: 8) == 1)
    }

    @Test("the release of startup pages at its edges, and off")
    func startupPagesEdges() throws {
        var configuration = DaemonConfiguration()
        try configuration.apply(["memory": ["releaseStartupPagesAfterSeconds": 1]], file: "f.json")
        #expect(configuration.releaseStartupPagesAfterSeconds == 1)
        try configuration.apply(["memory": ["releaseStartupPagesAfterSeconds": 3_600, "releaseStartupPages": false]], file: "f.json")
        #expect(configuration.releaseStartupPagesAfterSeconds == 3_600)
        #expect(!configuration.releaseStartupPages)
    }

    @Test("the species file is read beside the configuration file unless absolute")
    func speciesPath() {
        var c = DaemonConfiguration()
        c.configFile = "/etc/petspotd/petspotd.json"
        #expect(c.resolvedSpeciesFile == "/etc/petspotd/species.json")
        c.speciesFile = "/usr/share/petspotd/species.json"
        #expect(c.resolvedSpeciesFile == "/usr/share/petspotd/species.json")
    }
}
