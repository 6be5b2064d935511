import ArgumentParser
import PetSpotClient

/// `--socket`, `--timeout` and `--max-answer-bytes`, shared by every command that talks to the daemon.
struct SocketOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $PETSPOT_SOCKET, else /run/petspotd/petspotd.sock).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds one call may take, from the request to the whole answer, however slowly it comes (default 120: longer than any wait of the daemon's defaults, a location wait included).",
            valueName: "seconds"))
    var timeout: Double = Double(PetSpotConnection.defaultTimeout.components.seconds)

    @Option(
        name: .customLong("max-answer-bytes"),
        help: ArgumentHelp(
            "The longest answer line taken (default 64 MiB: a report with a photo of the daemon's largest default size, 10 MiB, fits many times over; raise it with limits.maxPhotoBytes).",
            valueName: "bytes"))
    var maxAnswerBytes: Int = PetSpotConnection.defaultMaxLineBytes

    func validate() throws {
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be more than 0 and at most 86400 seconds, not \(timeout)") }
        guard maxAnswerBytes >= 65_536 else { throw ValidationError("--max-answer-bytes must be at least 65536, not \(maxAnswerBytes)") }
    }

    var path: String { socket ?? PetSpotConnection.defaultSocketPath() }

    /// Connects, or ends the command with one line and exit code 69.
    func connect() -> PetSpotConnection {
        do {
            return try PetSpotConnection(socketPath: path, timeout: .milliseconds(Int64(timeout * 1000)), maxLineBytes: maxAnswerBytes)
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }
}
