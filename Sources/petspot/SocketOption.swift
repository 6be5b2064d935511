import ArgumentParser
import PetSpotClient

/// `--socket`, shared by every command that talks to the daemon.
struct SocketOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $PETSPOT_SOCKET, else ./run/petspotd.sock, else /run/petspotd/petspotd.sock).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    var path: String { socket ?? PetSpotConnection.defaultSocketPath() }

    /// Connects, or ends the command with one line and exit code 69.
    func connect() -> PetSpotConnection {
        do {
            return try PetSpotConnection(socketPath: path)
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }
}
