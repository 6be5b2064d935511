import FoundationEssentials
import PetSpotProtocol
import PetSpotViews

/// An animal of the animal list read for the `animals` commands: what a finder at a kiosk needs
/// to recognise the pet and reach its owner, as the daemon let the caller see it.
struct AnimalRecord {
    let animal: Animal

    init(_ animal: Animal) {
        self.animal = animal
    }

    /// "0.4 km", "12 km": tenths of a kilometre near, whole kilometres from 10 km on; "-"
    /// when the list is not measured from a place or the animal has no position.
    var distance: String {
        guard let literal = animal.distanceKm?.literal else { return "-" }
        // Half the Earth's circumference is the farthest a place can be; anything else a daemon
        // sends is shown as it came (escaped by the caller), never computed with.
        guard let km = Double(literal), km.isFinite, km >= 0, km <= 20_100 else { return literal + " km" }
        if km < 10 { return (km * 10).rounded() / 10 == 0 ? "< 0.1 km" : Self.decimalText(km, decimals: 1) + " km" }
        return Self.decimalText(km, decimals: 0) + " km"
    }

    /// When it went missing, else the day it was reported.
    var since: String {
        animal.disappearanceDate ?? String(animal.submittedAt.prefix(10))
    }

    /// Every way to reach the owner shown to the caller (masked for the public), phone first.
    var contact: String? {
        let both = [animal.contact.phone, animal.contact.email].compactMap { $0 }
        return both.isEmpty ? nil : both.joined(separator: ", ")
    }

    var position: MapLinks? {
        animal.lastSeen.map { MapLinks(latitude: $0.latitude.literal, longitude: $0.longitude.literal) }
    }

    var gender: String? {
        animal.gender.map { $0.prefix(1).uppercased() + $0.dropFirst() }
    }

    var age: String? {
        animal.age.map { $0 == 1 ? "1 year" : "\($0) years" }
    }

    /// `value` with exactly `decimals` digits after the point, rounded half away from zero.
    private static func decimalText(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = scaled % Int(scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }
}
