import PetSpotFlow
import PetSpotProtocol
import PetSpotSystem
@testable import PetSpotLocation
import PetSpotViews
import Testing

/// A fixed account database: alice (1000) is in group field (2000), bob (1001) is not.
struct FixedAccounts: UnixAccounts {
    func userName(of uid: UInt32) -> String? { [1000: "alice", 1001: "bob"][uid] }
    func groups(of uid: UInt32, primary gid: UInt32) -> [UInt32] { uid == 1000 ? [gid, 2000] : [gid] }
    func groupID(named name: String) -> UInt32? { ["field": 2000, "staff": 50][name] }
}

@Suite("Location permission policy")
struct LocationPermissionPolicyTests {
    static let alice = LocationClient(uid: 1000, gid: 1000)
    static let bob = LocationClient(uid: 1001, gid: 1001)

    @Test("who is let in", arguments: [
        (LocationPermission.everyone, bob, true),
        (.nobody, alice, false),
        (.listed(users: ["alice"], groups: []), alice, true),
        (.listed(users: ["alice"], groups: []), bob, false),
        (.listed(users: ["1001"], groups: []), bob, true),
        (.listed(users: [], groups: ["field"]), alice, true),
        (.listed(users: [], groups: ["field"]), bob, false),
        (.listed(users: [], groups: ["2000"]), alice, true),
        (.listed(users: [], groups: ["1001"]), bob, true),  // the primary group counts
        (.listed(users: [], groups: ["no-such-group"]), alice, false),
        (.listed(users: [], groups: []), alice, false),
    ])
    func allows(permission: LocationPermission, client: LocationClient, allowed: Bool) {
        #expect(permission.allows(client, accounts: FixedAccounts()) == allowed)
    }

    @Test("the service refuses before asking any provider, pointing at the key to change")
    func serviceRefuses() async {
        let provider = ScriptedProvider(name: "a", answer: .fix(warsaw))
        let service = LocationService(providers: [provider], settingsFile: "/etc/petspotd/petspotd.json",
                                      permission: .listed(users: [], groups: ["field"]), accounts: FixedAccounts(), clock: .manual(ManualTime()))
        #expect(await service.current(for: Self.bob) == .permissionDenied(SettingsLocation(file: "/etc/petspotd/petspotd.json", key: "location.permission.groups")))
        #expect(provider.givenTimeouts.withLock { $0 }.isEmpty)
        #expect(await service.current(for: Self.alice) == .fix(warsaw))
        #expect(await service.status(for: Self.bob).permission == .denied)
        #expect(await service.status(for: Self.alice).permission == .allowed)
    }
}
