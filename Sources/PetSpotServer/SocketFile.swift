#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import NIOCore
import NIOPosix
import PetSpotSettings
import PetSpotSystem

/// The socket's path on disk: never take over the socket of a daemon that is still serving,
/// and clear away one left behind by a daemon that died.
enum SocketFile {
    /// Binds the listening socket at the configured path, with the configured mode.
    static func bind(_ bootstrap: ServerBootstrap, _ configuration: DaemonConfiguration) async throws -> any Channel {
        // The socket is born with no access for others; its configured mode is set right after.
        let previousMask = umask(0o177)
        defer { umask(previousMask) }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: configuration.socketPath).get()
        } catch {
            throw ConfigurationError("socket.path: cannot listen on \(configuration.socketPath): \(error)")
        }
        guard chmod(configuration.socketPath, mode_t(configuration.socketMode)) == 0 else {
            let reason = String(cString: strerror(errno))
            try? await channel.close()
            throw ConfigurationError("socket.mode: cannot set mode \(String(configuration.socketMode, radix: 8)) on \(configuration.socketPath): \(reason)")
        }
        return channel
    }


    /// Makes `path` free to bind, or says why it cannot be.
    static func prepare(_ path: String) throws(ConfigurationError) {
        guard path.utf8.count < 108 else {
            throw ConfigurationError("socket.path: \"\(path)\" is longer than the 107 bytes a Unix socket path may have")
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw ConfigurationError("socket.path: cannot create the folder \(parent): \(SystemError.reason(error))")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ConfigurationError("socket.path: \(path) exists and is not a socket; not touching it")
        }
        if isServed(path) {
            throw ConfigurationError("socket.path: another daemon is serving \(path); stop it or choose another --socket")
        }
        // Nobody answers: the socket was left behind by a daemon that died.
        guard unlink(path) == 0 || errno == ENOENT else {
            throw ConfigurationError("socket.path: cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether a process accepts connections on the socket right now. Only a refused
    /// connection proves the socket stale; anything else (a full backlog, no permission) is
    /// taken as a daemon that is there. The connect never blocks.
    static func isServed(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // ENOENT: the stale file went away meanwhile, which is as good as stale.
        return result == 0 || (errno != ECONNREFUSED && errno != ENOENT)
    }

    /// The identity of the file we bound, so shutdown removes our socket and nobody else's.
    static func identity(_ path: String) -> (dev: UInt64, ino: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    static func removeIfOurs(_ path: String, identity: (dev: UInt64, ino: UInt64)?) {
        guard let identity, let current = self.identity(path), current == identity else { return }
        unlink(path)
    }
}
