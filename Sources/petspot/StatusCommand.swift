import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText
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
        let info = conn.callOrExit(DaemonInfo.self)
        let location = conn.callOrExit(LocationStatus.self)
        print(VisibleText.line("petspotd \(info.version) (protocol \(info.protocolVersion)) on \(conn.socketPath)"))
        if let box = info.box { print(VisibleText.line("box: \(box)")) }
        var parts: [String] = []
        if let photo = info.limit("maxPhotoBytes") { parts.append("photos up to \(ByteSize.text(photo))") }
        if let flows = info.limit("maxFlowsPerUser") { parts.append("\(flows) open reports per user") }
        if let idle = info.limit("flowIdleTimeoutSeconds") { parts.append("an idle report expires after \(idle) s") }
        if !parts.isEmpty { print("limits: " + parts.joined(separator: ", ")) }
        Self.printLocation(location)
    }

    /// The location lines `petspot status` and `petspot location` share.
    static func printLocation(_ status: LocationStatusView) {
        print(VisibleText.line("location: \(status.enabled ? "enabled" : "disabled"), permission \(status.permission.rawValue)"))
        for provider in status.providers {
            var line = "\(provider.name): \(provider.state.rawValue)"
            if let detail = provider.detail { line += ", \(detail)" }
            if let age = provider.lastFixAgeMs { line += ", last fix \(age) ms ago" }
            if let error = provider.lastError { line += ", \(error)" }
            print("  " + VisibleText.line(line))
        }
    }
}
