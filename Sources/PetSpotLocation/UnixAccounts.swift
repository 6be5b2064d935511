#if canImport(Glibc)
import Glibc
#endif

/// The account database, as far as the permission policy needs it.
public protocol UnixAccounts: Sendable {
    func userName(of uid: UInt32) -> String?
    /// Every group the user is in: the primary one and the supplementary ones.
    func groups(of uid: UInt32, primary gid: UInt32) -> [UInt32]
    func groupID(named name: String) -> UInt32?
}

/// The system's accounts through NSS (files, LDAP, …). These calls may block on a directory
/// service, which is why the policy is only ever checked off the event loops.
public struct SystemAccounts: UnixAccounts {
    public init() {}

    public func userName(of uid: UInt32) -> String? {
        withBuffer { buffer in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(uid, &entry, buffer.baseAddress!, buffer.count, &result) == 0, result != nil else { return nil }
            return entry.pw_name.map { String(cString: $0) }
        }
    }

    public func groups(of uid: UInt32, primary gid: UInt32) -> [UInt32] {
        guard let name = userName(of: uid) else { return [gid] }
        var count: Int32 = 64
        while true {
            var list = [gid_t](repeating: 0, count: Int(count))
            var found = count
            if getgrouplist(name, gid, &list, &found) >= 0 {
                return Array(list.prefix(Int(found)))
            }
            guard found > count else { return [gid] }
            count = found
        }
    }

    public func groupID(named name: String) -> UInt32? {
        withBuffer { buffer in
            var entry = group()
            var result: UnsafeMutablePointer<group>?
            guard getgrnam_r(name, &entry, buffer.baseAddress!, buffer.count, &result) == 0, result != nil else { return nil }
            return entry.gr_gid
        }
    }

    private func withBuffer<T>(_ body: (UnsafeMutableBufferPointer<CChar>) -> T?) -> T? {
        var size = 16_384
        while size <= 1 << 20 {
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            errno = 0
            if let value = body(buffer) { return value }
            guard errno == ERANGE else { return nil }
            size *= 4
        }
        return nil
    }
}
