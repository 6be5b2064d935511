import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// A stored report (`{id, flowId, submittedAt, values, delivery}`) read for the `reports` commands.
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
