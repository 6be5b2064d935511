import FoundationEssentials
import PetSpotSettings

/// petspotd tells users apart by the uid the kernel reports for each peer. Inside a user
/// namespace that maps only some ids (systemd's PrivateUsers=), every other user shows up as
/// the overflow uid, so all of them would share one owner's flows and reports: refuse to run.
enum UserNamespace {
    static func requireIdentityMapping(uidMap: String = "/proc/self/uid_map") throws(ConfigurationError) {
        guard let text = try? String(contentsOfFile: uidMap, encoding: .utf8) else { return }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields == ["0", "0", "4294967295"] else {
            throw ConfigurationError("petspotd runs in a user namespace that does not map every uid (\(text.split(separator: "\n").joined(separator: "; "))); it could not tell its users apart. Remove PrivateUsers= from the service")
        }
    }
}
