#if canImport(Glibc)
import Glibc
import PetSpotSettings
#endif

/// Socket activation: systemd binds the socket and hands it over as descriptor 3, announced in
/// LISTEN_PID and LISTEN_FDS (sd_listen_fds(3)).
enum SystemdActivation {
    static let firstDescriptor: CInt = 3

    /// The listening socket systemd passed to this process, or nil when started without one.
    /// The variables are removed so that no child process mistakes them for its own.
    static func takeListeningSocket() throws(ConfigurationError) -> CInt? {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }),
              let fdsText = getenv("LISTEN_FDS").map({ String(cString: $0) })
        else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        guard let pid = Int32(pidText), pid == getpid() else { return nil }
        guard let count = Int(fdsText), count >= 1 else { return nil }
        guard count == 1 else {
            throw ConfigurationError("socket activation: petspotd takes one socket, systemd passed \(count); keep one ListenStream= in petspotd.socket")
        }
        let fd = firstDescriptor
        var type: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let isStream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == CInt(SOCK_STREAM.rawValue)
        let isUnix = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) == 0 }
        } && address.ss_family == sa_family_t(AF_UNIX)
        guard isStream, isUnix else {
            throw ConfigurationError("socket activation: descriptor 3 is not a Unix stream socket; petspotd.socket needs ListenStream=/path")
        }
        // NIO wants a non-blocking socket, and no child should inherit it.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
