#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotJSON
import PetSpotRelay
import PetSpotSettings
import PetSpotSystem
import Testing

@Suite("Relay configuration")
struct RelayConfigurationTests {
    private func applied(_ json: JSONValue) throws(ConfigurationError) -> RelayConfiguration {
        var c = RelayConfiguration(socketPath: "/run/petspotd/petspotd.sock")
        try c.apply(json, file: "relay.json")
        return c
    }

    @Test("defaults")
    func defaults() {
        let c = RelayConfiguration(socketPath: "/s")
        #expect(c.batchSize == 100)
        #expect(c.pollInterval == .seconds(30))
        #expect(c.retryMaxDelay == .seconds(30))
        #expect(c.stateFile == "/var/lib/petspot-relay/state.json")
        #expect(c.postgres == nil)
        #expect(c.box == nil)
    }

    @Test("every key is read")
    func everyKey() throws {
        let c = try applied([
            "socket": "/tmp/p.sock", "postgres": "postgres://relay@db/central?sslmode=require", "box": "kiosk-7",
            "batchSize": 500, "pollIntervalSeconds": .number(JSONNumber(validatedLiteral: "0.25")), "retryMaxDelaySeconds": 5,
            "stateFile": "/tmp/state.json", "maxAnswerBytes": 1_048_576,
        ])
        #expect(c.socketPath == "/tmp/p.sock")
        #expect(c.postgres?.text == "postgres://relay@db/central?sslmode=require")
        #expect(c.postgres?.masked == "user=relay dbname=central host=db sslmode=require")
        #expect(c.box == "kiosk-7")
        #expect(c.batchSize == 500)
        #expect(c.pollInterval == .milliseconds(250))
        #expect(c.retryMaxDelay == .seconds(5))
        #expect(c.stateFile == "/tmp/state.json")
        #expect(c.maxAnswerBytes == 1_048_576)
        #expect(Set(RelayConfiguration.knownKeys) == ["socket", "postgres", "box", "batchSize", "pollIntervalSeconds", "retryMaxDelaySeconds", "stateFile", "maxAnswerBytes", "fleet", "boardRadiusKm", "fleetPagePhotoBytes"])
    }

    @Test("bad values are refused naming the file, the key and the problem", arguments: [
        (JSONValue.array([]), "relay.json: the configuration must be a JSON object"),
        (["sokcet": "/x", "boxx": "a"], "relay.json: unknown key \"sokcet\"; known: socket, postgres, box, batchSize, pollIntervalSeconds, retryMaxDelaySeconds, stateFile, maxAnswerBytes"),
        (["batchsize": 1], "relay.json: unknown key \"batchsize\"; did you mean \"batchSize\"?"),
        (["postgres": ["url": "x"]], "relay.json: postgres: expected a string, found an object"),
        (["relay": ["box": "a"]], "relay.json: unknown key \"relay.box\"; known: socket,"),
        (["socket": 5], "relay.json: socket: expected a string, found a number"),
        (["socket": ""], "relay.json: socket: must not be empty"),
        (["postgres": "mysql://x@y/z"], "relay.json: postgres: the PostgreSQL connection string cannot be used: missing \"=\" after (not shown) in connection info string"),
        (["postgres": "postgres://relay:c2Vj@y:0/z"], "relay.json: postgres: the PostgreSQL connection string cannot be used: a port is not a number from 1 to 65535"),
        (["box": "a\u{7}b"], "relay.json: box: the box name must not contain control characters"),
        (["batchSize": 0], "relay.json: batchSize: 0 is out of range 1...10000"),
        (["maxAnswerBytes": 1_048_575], "relay.json: maxAnswerBytes: 1048575 is out of range 1048576...1073741824"),
        (["maxAnswerBytes": 1_073_741_825], "relay.json: maxAnswerBytes: 1073741825 is out of range 1048576...1073741824"),
        (["batchSize": 10_001], "relay.json: batchSize: 10001 is out of range 1...10000"),
        (["batchSize": "10"], "relay.json: batchSize: expected a whole number, found a string"),
        (["batchSize": .number(JSONNumber(validatedLiteral: "1.5"))], "relay.json: batchSize: expected a whole number, found 1.5"),
        (["sokcet": [:]], "relay.json: unknown key \"sokcet\"; known: socket,"),
        (["pollIntervalSeconds": 0], "relay.json: pollIntervalSeconds: expected a number of seconds from 0.01 to 3600, found 0"),
        (["pollIntervalSeconds": 3_601], "relay.json: pollIntervalSeconds: expected a number of seconds from 0.01 to 3600, found 3601"),
        (["retryMaxDelaySeconds": 0], "relay.json: retryMaxDelaySeconds: 0 is out of range 1...3600"),
        (["retryMaxDelaySeconds": 3_601], "relay.json: retryMaxDelaySeconds: 3601 is out of range 1...3600"),
    ] as [(JSONValue, String)])
    func refused(_ json: JSONValue, _ message: String) {
        do {
            _ = try applied(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test("the edges of each range are accepted")
    func edges() throws {
        #expect(try applied(["batchSize": 1]).batchSize == 1)
        #expect(try applied(["batchSize": 10_000]).batchSize == 10_000)
        #expect(try applied(["pollIntervalSeconds": .number(JSONNumber(validatedLiteral: "0.01"))]).pollInterval == .milliseconds(10))
        #expect(try applied(["pollIntervalSeconds": 3_600]).pollInterval == .seconds(3_600))
        #expect(try applied(["retryMaxDelaySeconds": 1]).retryMaxDelay == .seconds(1))
        #expect(try applied(["retryMaxDelaySeconds": 3_600]).retryMaxDelay == .seconds(3_600))
    }

    @Test("a file that cannot be read or parsed is named")
    func unreadableFile() throws {
        #expect(throws: ConfigurationError("/nonexistent/relay.json: cannot read the configuration file: No such file or directory")) {
            try RelayConfiguration.load(file: "/nonexistent/relay.json")
        }
        let path = "/tmp/relay-config-\(getpid()).json"
        try "{\"box\": ".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try RelayConfiguration.load(file: path)
            Issue.record("accepted broken JSON")
        } catch {
            #expect(error.description.hasPrefix("\(path): not valid JSON"))
        }
    }
}

@Suite("The password credential")
struct PasswordCredentialTests {
    let url = try! PostgresConnectionString(parsing: "postgres://relay@db/central")

    func withCredential(_ contents: String?, _ body: (String) throws -> Void) throws {
        let directory = "/tmp/petspot-credentials-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(directory, 0o700)
        defer {
            unlink(directory + "/postgres-password")
            rmdir(directory)
        }
        if let contents {
            close(open(directory + "/postgres-password", O_CREAT | O_WRONLY, 0o600))
            try FileDescriptorIO.writeFile(directory + "/postgres-password", contents)
        }
        try body(directory)
    }

    @Test("no credentials directory, or none named postgres-password: the connection string as it is")
    func absent() throws {
        #expect(try RelayConfiguration.withCredentialPassword(url, credentialsDirectory: nil) == url)
        #expect(try RelayConfiguration.withCredentialPassword(url, credentialsDirectory: "") == url)
        try withCredential(nil) { directory in
            let read = try RelayConfiguration.withCredentialPassword(url, credentialsDirectory: directory)
            #expect(read == url)
        }
    }

    @Test("the file's contents are the password, less one line break at the end", arguments: [
        ("s3cret", "s3cret"), ("s3cret\n", "s3cret"), ("s3cret\r\n", "s3cret"), ("s3cret\n\n", "s3cret\n"), (" a b ", " a b "),
    ])
    func password(contents: String, password: String) throws {
        try withCredential(contents) { directory in
            let read = try RelayConfiguration.withCredentialPassword(url, credentialsDirectory: directory)
            #expect(read.credentialPassword == password)
            #expect(read.masked == "user=relay dbname=central host=db password=*** (credential)")
        }
    }

    @Test("refused: an empty credential, and a password given twice")
    func refused() throws {
        try withCredential("\n") { directory in
            #expect(throws: ConfigurationError.self) { try RelayConfiguration.withCredentialPassword(url, credentialsDirectory: directory) }
        }
        let withPassword = try PostgresConnectionString(parsing: "host=db user=relay password=other")
        try withCredential("s3cret") { directory in
            #expect(throws: ConfigurationError.self) { try RelayConfiguration.withCredentialPassword(withPassword, credentialsDirectory: directory) }
        }
    }
}

@Suite("Relay documentation")
struct RelayDocumentationTests {
    @Test("docs/OPERATIONS.md's relay section has a row for every key")
    func everyKeyDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = String(decoding: try FileDescriptorIO.readFile(root.appendingPathComponent("docs/OPERATIONS.md").path), as: UTF8.self)
        let section = try #require(text.firstRange(of: "## The relay: petspot-relay")).upperBound
        let relay = text[section...]
        for key in RelayConfiguration.knownKeys {
            #expect(relay.contains("| `\(key)` |"), "docs/OPERATIONS.md's relay section has no row for \(key)")
        }
    }
}
