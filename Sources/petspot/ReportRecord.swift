import FoundationEssentials
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// A stored report (`{id, flowId, submittedAt, status, version, updatedAt, expiresAt, erased,
/// values, delivery}`) read for the `reports` commands.
struct ReportRecord {
    let view: ReportView

    init(_ view: ReportView) {
        self.view = view
    }

    var id: String { view.id }
    var flowID: String { view.flowID }
    var submittedAt: String { view.submittedAt }
    var values: JSONValue { .object(view.values) }

    /// A value as the daemon stored it, as text; nil when not provided.
    func text(_ field: String) -> String? {
        values[field]?.plainText
    }

    /// Whether a relay has taken the report to the central database: "pending", or
    /// "delivered" with the time when asked for it.
    func delivery(withTime: Bool) -> String {
        switch view.delivery {
        case .pending: "pending"
        case .delivered(let at): withTime ? "delivered \(at)" : "delivered"
        }
    }

    /// Where the report stands, in people's words, relative to `now` (the client's clock):
    /// "missing, expires in 12 days", "expired 3 days ago", "found 2 hours ago", "withdrawn, erased".
    ///
    /// A closed report can change no more but by its erasure, so its `updatedAt` is when it was
    /// closed; an expired one's is when it expired, unless it was amended since (the protocol
    /// does not say when it expired).
    func standing(now: Date) -> String {
        let status = view.status.rawValue
        if view.erased { return "\(status), erased" }
        switch view.status {
        case .missing:
            guard let expiresAt = view.expiresAt else { return status }
            guard let moment = Self.date(expiresAt) else { return "\(status), expires \(expiresAt)" }
            // The daemon expires it within seconds; a client whose clock runs ahead sees this.
            guard moment > now else { return "\(status), due to expire \(RelativeTime.text(moment, from: now))" }
            return "\(status), expires \(RelativeTime.text(moment, from: now))"
        case .expired, .found, .withdrawn:
            guard let moment = Self.date(view.updatedAt) else { return status }
            // A past event: a client whose clock runs behind sees it as just now.
            return "\(status) \(RelativeTime.text(min(moment, now), from: now))"
        }
    }

    /// A time as the protocol writes it ("2026-11-21T13:07:27Z"), or nil.
    static func date(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }

    var chip: String? { text("chipNumber").map(ChipNumberText.formatted) }

    var position: MapLinks? {
        guard let latitude = text("latitude"), let longitude = text("longitude") else { return nil }
        return MapLinks(latitude: latitude, longitude: longitude)
    }

    var photo: (mediaType: String, bytes: Int, sha256: String)? {
        guard let photo = values["photo"], let mediaType = photo["mediaType"]?.stringValue else { return nil }
        return (mediaType, photo["bytes"]?.intValue ?? 0, photo["sha256"]?.stringValue ?? "")
    }

    var age: String? {
        guard let years = values["age"]?.intValue else { return text("age") }
        return years == 1 ? "1 year" : "\(years) years"
    }

    /// "Female" / "Male" from the stored id.
    var gender: String? {
        text("gender").map { $0.prefix(1).uppercased() + $0.dropFirst() }
    }

    /// Every way to reach the owner, phone first.
    var contacts: String? {
        let both = [text("contactPhone"), text("contactEmail")].compactMap { $0 }
        return both.isEmpty ? nil : both.joined(separator: ", ")
    }
}
