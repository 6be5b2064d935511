import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PetSpotClient
import PetSpotJSON
import PetSpotSystem

/// Every setting of the relay, with its default: from a JSON file with these keys, then flags on top.
public struct RelayConfiguration: Sendable, Equatable {
    /// The daemon's socket.
    public var socketPath: String
    /// The central database; there is no default, a relay without one cannot start.
    public var postgres: PostgresURL?
    /// The name this box's reports carry centrally; nil: /etc/machine-id's contents.
    public var box: String?
    /// Reports claimed, written and acknowledged at a time.
    public var batchSize = 100
    /// After an empty claim, the wait before asking again.
    public var pollInterval: Duration = .seconds(1)
    /// The longest wait between attempts while the daemon or PostgreSQL is away.
    public var retryMaxDelay: Duration = .seconds(30)
    /// Where the running relay keeps its state for `--status`.
    public var stateFile = "/var/lib/petspot-relay/state.json"
    /// The longest answer line taken from the daemon: a claim's photos travel as base64 on one
    /// line (the daemon's relay.maxClaimBytes, 8 MiB by default, is about 11 MiB of it).
    public var maxAnswerBytes = PetSpotConnection.defaultMaxLineBytes
    public static let maxAnswerBytesRange = 1_048_576...1_073_741_824

    public static let defaultConfigFile = "/etc/petspot-relay/petspot-relay.json"
    public static let batchSizeRange = 1...10_000
    public static let retryMaxDelayRange = 1...3_600

    public init(socketPath: String = PetSpotConnection.defaultSocketPath()) {
        self.socketPath = socketPath
    }

    /// The credential (`LoadCredential=postgres-password:FILE` in the unit) that holds the
    /// database's password, so that neither the configuration file nor the command line need to.
    public static let passwordCredential = "postgres-password"

    /// `url` with the password of the `postgres-password` credential when systemd passed one in
    /// `credentialsDirectory` (`$CREDENTIALS_DIRECTORY`). A password in both places is refused:
    /// which one wins would be a guess.
    public static func withCredentialPassword(_ url: PostgresURL, credentialsDirectory: String?) throws(RelayConfigurationError) -> PostgresURL {
        guard let credentialsDirectory, !credentialsDirectory.isEmpty else { return url }
        let path = credentialsDirectory + "/" + passwordCredential
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptorIO.readFile(path)
        } catch where error.errno == ENOENT {
            return url
        } catch {
            throw RelayConfigurationError("the credential \(passwordCredential): cannot read \(path): \(SystemError.reason(error))")
        }
        // A file written by an editor or `echo` ends in a line break that is no part of the password.
        var password = String(decoding: bytes, as: UTF8.self)
        if password.last?.isNewline == true { password.removeLast() }
        guard !password.isEmpty else {
            throw RelayConfigurationError("the credential \(passwordCredential) (\(path)) is empty")
        }
        guard url.password == nil else {
            throw RelayConfigurationError("the password is given twice, in the PostgreSQL URL and in the credential \(passwordCredential): keep one (the credential keeps it out of the configuration file)")
        }
        var url = url
        url.password = password
        return url
    }

    /// The keys a file may hold; any other key is refused, so that a typo never leaves a default in place.
    public static let knownKeys = ["socket", "postgres", "box", "batchSize", "pollIntervalSeconds", "retryMaxDelaySeconds", "stateFile", "maxAnswerBytes"]

    /// Reads a configuration file on top of the defaults.
    public static func load(file: String, defaults: RelayConfiguration = RelayConfiguration()) throws(RelayConfigurationError) -> RelayConfiguration {
        let data: [UInt8]
        do {
            data = try FileDescriptorIO.readFile(file)
        } catch {
            throw RelayConfigurationError("\(file): cannot read the configuration file: \(SystemError.reason(error))")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(data)
        } catch {
            throw RelayConfigurationError("\(file): not valid JSON: \(error)")
        }
        var configuration = defaults
        try configuration.apply(json, file: file)
        return configuration
    }

    /// Applies a parsed file's members to these settings.
    public mutating func apply(_ json: JSONValue, file: String) throws(RelayConfigurationError) {
        guard case .object(let object) = json else {
            throw RelayConfigurationError("\(file): the configuration must be a JSON object")
        }
        let unknown = object.keys.filter { !Self.knownKeys.contains($0) }
        guard unknown.isEmpty else {
            throw RelayConfigurationError("\(file): unknown key\(unknown.count == 1 ? "" : "s") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); known: \(Self.knownKeys.joined(separator: ", "))")
        }
        for (key, value) in object {
            func fail(_ problem: String) -> RelayConfigurationError { RelayConfigurationError("\(file): \(key): \(problem)") }
            func string() throws(RelayConfigurationError) -> String {
                guard let s = value.stringValue else { throw fail("expected a string, found \(value.typeName)") }
                guard !s.isEmpty else { throw fail("must not be empty") }
                return s
            }
            func int(_ range: ClosedRange<Int>) throws(RelayConfigurationError) -> Int {
                guard case .number(let n) = value, let i = n.exactInt else { throw fail("expected a whole number, found \(value.typeName)") }
                guard range.contains(i) else { throw fail("\(i) is out of range \(range.lowerBound)...\(range.upperBound)") }
                return i
            }
            switch key {
            case "socket":
                socketPath = try string()
            case "postgres":
                let text = try string()
                do throws(PostgresURLError) {
                    postgres = try PostgresURL(parsing: text)
                } catch {
                    throw fail(error.description)
                }
            case "box":
                let name = try string()
                if let problem = Self.boxProblem(name) { throw fail(problem) }
                box = name
            case "batchSize":
                batchSize = try int(Self.batchSizeRange)
            case "pollIntervalSeconds":
                guard case .number(let n) = value, let interval = Self.pollInterval(n.literal) else {
                    throw fail("expected a number of seconds from 0.01 to 3600, found \(value.typeName == "a number" ? JSONWriter.string(value) : value.typeName)")
                }
                pollInterval = interval
            case "retryMaxDelaySeconds":
                retryMaxDelay = .seconds(try int(Self.retryMaxDelayRange))
            case "stateFile":
                stateFile = try string()
            case "maxAnswerBytes":
                maxAnswerBytes = try int(Self.maxAnswerBytesRange)
            default:
                break
            }
        }
    }

    /// A poll interval from its decimal text: 0.01...3600 seconds, to the millisecond.
    public static func pollInterval(_ text: String) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0.01, seconds <= 3_600 else { return nil }
        return .milliseconds(Int64((seconds * 1_000).rounded()))
    }

    /// What is wrong with a box name, or nil: it is stored with every report, so it must be printable.
    public static func boxProblem(_ name: String) -> String? {
        if name.isEmpty { return "the box name must not be empty" }
        if name.utf8.count > 255 { return "the box name is longer than 255 bytes" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the box name must not contain control characters"
        }
        return nil
    }

    /// The box's name when none is configured: its systemd machine id.
    public static func machineID(path: String = "/etc/machine-id") throws(RelayConfigurationError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptorIO.readFile(path)
        } catch {
            throw RelayConfigurationError("no box name given (--box or the key box) and \(path) cannot be read: \(SystemError.reason(error))")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let id = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if let problem = boxProblem(id) {
            throw RelayConfigurationError("no box name given (--box or the key box) and \(path) does not hold one: \(problem)")
        }
        return id
    }
}

/// A setting that stops the start: one line naming where, which key and what is wrong.
public struct RelayConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
