#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Two descriptors per connection (its socket, and the spool file of a photo its request in
/// hand writes or reads back: spool files are open only then), plus the daemon's own: the
/// database and its journal, the event loops, gpsd, the species file on reload.
enum FileDescriptorLimit {
    static let headroom = 64
    static let perConnection = 2

    /// Raises the soft RLIMIT_NOFILE to what `maxConnections` needs, as far as the hard limit
    /// allows; says in one line when the connections cannot all be had.
    static func ensure(maxConnections: Int, logger: Logger) {
        let needed = rlim_t(maxConnections * perConnection + headroom)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return }
        guard limit.rlim_cur < needed else { return }
        let wanted = min(needed, limit.rlim_max)
        var raised = limit
        raised.rlim_cur = wanted
        let soft = wanted > limit.rlim_cur && setrlimit(resource, &raised) == 0 ? wanted : limit.rlim_cur
        if soft >= needed {
            logger.info("raised the open-file limit for limits.maxConnections", metadata: ["from": "\(limit.rlim_cur)", "to": "\(soft)"])
        } else {
            // What the daemon itself holds once serving is a few dozen descriptors at most.
            let fit = max(0, (Int(soft) - openDescriptors() - 24) / perConnection)
            logger.warning("limits.maxConnections cannot be reached with this open-file limit; raise LimitNOFILE (or ulimit -n)", metadata: [
                "limit": "limits.maxConnections=\(maxConnections)", "openFileLimit": "\(soft)", "hardLimit": "\(limit.rlim_max)",
                "needed": "\(needed)", "connectionsThatFit": "about \(fit)",
            ])
        }
    }

    private static func openDescriptors() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(dir) }
        var count = -3  // ".", ".." and the directory's own descriptor
        while readdir(dir) != nil { count += 1 }
        return max(count, 0)
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
