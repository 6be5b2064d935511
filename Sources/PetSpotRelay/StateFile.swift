#if canImport(Glibc)
import Glibc
#endif
import PetSpotJSON
import PetSpotSystem

/// The relay's state on disk: replaced whole (a temporary file, fsync, rename), so that
/// `--status` never reads half of one.
public struct StateFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func write(_ state: RelayState) throws(SystemError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(errno: errno) }
        do throws(SystemError) {
            // People read it too (cat, jq): what the daemon or PostgreSQL said, quoted in an
            // error, is written with JSON escapes for anything a terminal would act on.
            try FileDescriptorIO.write(fd, JSONWriter.terminalString(state.json) + "\n")
            guard fsync(fd) == 0 else { throw SystemError(errno: errno) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError(errno: errno)
            unlink(temporary)
            throw error
        }
    }

    /// The state last written; nil when there is none yet.
    public func read() throws(StateFileError) -> RelayState? {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptorIO.readFile(path)
        } catch {
            if error.errno == ENOENT { return nil }
            throw StateFileError("\(path): cannot read the state file: \(SystemError.reason(error))")
        }
        do {
            return try RelayState(json: try JSONParser.parse(bytes))
        } catch {
            throw StateFileError("\(path): not a relay state file: \(error)")
        }
    }
}

public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
