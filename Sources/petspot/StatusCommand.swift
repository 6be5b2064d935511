import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// `petspot status`: is the daemon there, which version, and what can it do for me.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's version, limits and location providers.",
        discussion: """
            A quick check that petspotd is running and answering on the socket, and what it \
            can do for you: whether you may use the location, and each location provider's state.

            Example:
              $ petspot status
              petspotd \(petspotdVersion) (protocol \(petspotProtocolVersion)) on run/petspotd.sock
              limits: photos up to 10 MiB, 50 open reports per user, an idle report expires after 1800 s
              location: enabled, permission allowed
                gpsd: disconnected, connection refused
                simulated: ready, mode fix
            """)

    @OptionGroup var connection: SocketOption

    func run() throws {
        let conn = connection.connect()
        let info = conn.callOrExit(.daemonInfo)
        let location = conn.callOrExit(.locationStatus)
        print(VisibleText.line("petspotd \(info["version"]?.stringValue ?? "?") (protocol \(info["protocolVersion"].map(JSONWriter.string) ?? "?")) on \(conn.socketPath)"))
        if let limits = info["limits"] {
            var parts: [String] = []
            if let photo = limits["maxPhotoBytes"]?.intValue { parts.append("photos up to \(ByteSize.text(photo))") }
            if let flows = limits["maxFlowsPerUser"]?.intValue { parts.append("\(flows) open reports per user") }
            if let idle = limits["flowIdleTimeoutSeconds"]?.intValue { parts.append("an idle report expires after \(idle) s") }
            if !parts.isEmpty { print("limits: " + parts.joined(separator: ", ")) }
        }
        print(VisibleText.line("location: \(location["enabled"] == .bool(true) ? "enabled" : "disabled"), permission \(location["permission"]?.stringValue ?? "?")"))
        for provider in location["providers"]?.arrayValue ?? [] {
            print("  " + ProviderLine.text(provider))
        }
    }
}

/// One location provider as `petspot status` and `petspot location` show it.
enum ProviderLine {
    static func text(_ provider: JSONValue) -> String {
        var line = "\(provider["name"]?.stringValue ?? "?"): \(provider["state"]?.stringValue ?? "?")"
        if let detail = provider["detail"]?.stringValue { line += ", \(detail)" }
        if let age = provider["lastFixAgeMs"]?.intValue { line += ", last fix \(age) ms ago" }
        if let error = provider["lastError"]?.stringValue { line += ", \(error)" }
        return VisibleText.line(line)
    }
}
