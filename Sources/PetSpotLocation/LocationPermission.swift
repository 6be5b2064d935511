/// Who may have a location. Location is personal data: a daemon shared by several users decides
/// per client, by the Unix user of the socket peer and the groups that user belongs to.
public enum LocationPermission: Sendable, Equatable {
    case everyone
    case nobody
    /// Users and groups by name or numeric id.
    case listed(users: [String], groups: [String])

    public func allows(_ client: LocationClient, accounts: any UnixAccounts) -> Bool {
        switch self {
        case .everyone:
            return true
        case .nobody:
            return false
        case .listed(let users, let groups):
            let userName = accounts.userName(of: client.uid)
            if users.contains(where: { $0 == String(client.uid) || $0 == userName }) { return true }
            guard !groups.isEmpty else { return false }
            let memberOf = Set(accounts.groups(of: client.uid, primary: client.gid))
            return groups.contains { group in
                (UInt32(group) ?? accounts.groupID(named: group)).map(memberOf.contains) ?? false
            }
        }
    }

    /// The configuration key a person changes to be let in ("Go to Settings").
    public var settingsKey: String {
        switch self {
        case .everyone, .nobody: "location.permission.allow"
        case .listed(_, let groups): groups.isEmpty ? "location.permission.users" : "location.permission.groups"
        }
    }
}

/// The client asking for a location, as the kernel identified it.
public struct LocationClient: Sendable, Hashable {
    public let uid: UInt32
    public let gid: UInt32

    public init(uid: UInt32, gid: UInt32) {
        self.uid = uid
        self.gid = gid
    }
}
