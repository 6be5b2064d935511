import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PetSpotClient
import PetSpotJSON
import PetSpotSettings
import PetSpotSystem

/// Every setting of the relay, with its default: from a JSON file with these keys, then flags on top.
public struct RelayConfiguration: Sendable, Equatable {
    /// The daemon's socket.
    public var socketPath: String
    /// The central database, as a libpq connection string; there is no default, a relay
    /// without one cannot start.
    public var postgres: PostgresConnectionString?
    /// The box name the daemon must have (a check); nil: the daemon's, whatever it is.
    public var box: String?
    /// Reports claimed, written and acknowledged at a time.
    public var batchSize = 100
    /// After an empty claim, the longest wait before asking again: reports filed meanwhile
    /// wake the relay at once (relay.watch), so this is a safety net, not the pace.
    public var pollInterval: Duration = .seconds(30)
    /// The longest wait between attempts while the daemon or PostgreSQL is away.
    public var retryMaxDelay: Duration = .seconds(30)
    /// Where the running relay keeps its state for `--status`.
    public var stateFile = "/var/lib/petspot-relay/state.json"
    /// The longest answer line taken from the daemon: a claim's photos travel as base64 on one
    /// line (the daemon's relay.maxClaimBytes, 8 MiB by default, is about 11 MiB of it).
    public var maxAnswerBytes = PetSpotConnection.defaultMaxLineBytes
    public static let maxAnswerBytesRange = 1_048_576...1_073_741_824
    /// Whether the other boxes' reports come down into the daemon for its animal list.
    public var fleet = true
    /// Only the other boxes' reports last seen this close to the box's position come down (a
    /// report without a position always does); nil: every box's, wherever.
    public var boardRadiusKm: Double?
    public static let boardRadiusKmRange = 1...20_038
    /// Photo bytes of one page of the fleet's feed (the first report comes whatever its size).
    public var fleetPagePhotoBytes = 16 * 1_048_576
    public static let fleetPagePhotoBytesRange = 1_048_576...1_073_741_824

    public static let defaultConfigFile = "/etc/petspot-relay/petspot-relay.json"
    public static let batchSizeRange = 1...10_000
    public static let retryMaxDelayRange = 1...3_600

    public init(socketPath: String = PetSpotConnection.defaultSocketPath()) {
        self.socketPath = socketPath
    }

    /// The credential (`LoadCredential=postgres-password:FILE` in the unit) that holds the
    /// database's password, so that neither the configuration file nor the command line need to.
    public static let passwordCredential = "postgres-password"

    /// `target` with the password of the `postgres-password` credential when systemd passed one
    /// in `credentialsDirectory` (`$CREDENTIALS_DIRECTORY`). A password in both places is
    /// refused: which one wins would be a guess.
    public static func withCredentialPassword(_ target: PostgresConnectionString, credentialsDirectory: String?) throws(ConfigurationError) -> PostgresConnectionString {
        guard let credentialsDirectory, !credentialsDirectory.isEmpty else { return target }
        let path = credentialsDirectory + "/" + passwordCredential
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptorIO.readFile(path)
        } catch where error.errno == ENOENT {
            return target
        } catch {
            throw ConfigurationError("the credential \(passwordCredential): cannot read \(path): \(SystemError.reason(error))")
        }
        // A file written by an editor or `echo` ends in a line break that is no part of the password.
        var password = String(decoding: bytes, as: UTF8.self)
        if password.last?.isNewline == true { password.removeLast() }
        guard !password.isEmpty else {
            throw ConfigurationError("the credential \(passwordCredential) (\(path)) is empty")
        }
        guard !target.hasPassword else {
            throw ConfigurationError("the password is given twice, in the PostgreSQL connection string and in the credential \(passwordCredential): keep one (the credential keeps it out of the configuration file)")
        }
        return target.adding(credentialPassword: password)
    }

    /// The keys a file may hold and how each is read: the one list of the relay's settings.
    static let settings: [Setting<RelayConfiguration>] = [
        .reloaded("socket", { c, v, r throws(ConfigurationError) in c.socketPath = try r.nonEmptyString(v) }),
        .reloaded("postgres", { c, v, r throws(ConfigurationError) in
            let text = try r.nonEmptyString(v)
            do throws(PostgresConnectionStringError) {
                c.postgres = try PostgresConnectionString(parsing: text)
            } catch {
                throw r.fail(error.description)
            }
        }),
        .reloaded("box", { c, v, r throws(ConfigurationError) in
            let name = try r.nonEmptyString(v)
            if let problem = boxProblem(name) { throw r.fail(problem) }
            c.box = name
        }),
        .reloaded("batchSize", { c, v, r throws(ConfigurationError) in c.batchSize = try r.int(v, batchSizeRange) }),
        .reloaded("pollIntervalSeconds", { c, v, r throws(ConfigurationError) in
            guard case .number(let n) = v, let interval = pollInterval(n.literal) else {
                throw r.fail("expected a number of seconds from 0.01 to 3600, found \(v.typeName == "a number" ? JSONWriter.string(v) : v.typeName)")
            }
            c.pollInterval = interval
        }),
        .reloaded("retryMaxDelaySeconds", { c, v, r throws(ConfigurationError) in c.retryMaxDelay = .seconds(try r.int(v, retryMaxDelayRange)) }),
        .reloaded("stateFile", { c, v, r throws(ConfigurationError) in c.stateFile = try r.nonEmptyString(v) }),
        .reloaded("maxAnswerBytes", { c, v, r throws(ConfigurationError) in c.maxAnswerBytes = try r.int(v, maxAnswerBytesRange) }),
        .reloaded("fleet", { c, v, r throws(ConfigurationError) in c.fleet = try r.bool(v) }),
        .reloaded("boardRadiusKm", { c, v, r throws(ConfigurationError) in
            if v.isNull { c.boardRadiusKm = nil; return }
            guard case .number(let n) = v, let km = Double(n.literal), km.isFinite,
                  km >= Double(boardRadiusKmRange.lowerBound), km <= Double(boardRadiusKmRange.upperBound) else {
                throw r.fail("expected null or a number of kilometres from \(boardRadiusKmRange.lowerBound) to \(boardRadiusKmRange.upperBound)")
            }
            c.boardRadiusKm = km
        }),
        .reloaded("fleetPagePhotoBytes", { c, v, r throws(ConfigurationError) in c.fleetPagePhotoBytes = try r.int(v, fleetPagePhotoBytesRange) }),
    ]

    public static var knownKeys: [String] { settings.map(\.key) }

    /// Reads a configuration file on top of `defaults`, with the daemon's loader.
    public static func load(file: String, defaults: RelayConfiguration = RelayConfiguration()) throws(ConfigurationError) -> RelayConfiguration {
        var configuration = defaults
        try configuration.apply(try SettingsFile.read(file), file: file)
        return configuration
    }

    /// Applies the members of a parsed file (or of a test's JSON).
    public mutating func apply(_ json: JSONValue, file: String) throws(ConfigurationError) {
        try SettingsFile.apply(json, to: &self, settings: Self.settings, file: file)
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
}
