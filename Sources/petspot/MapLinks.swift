/// A position as a person passes it on: "lat, lon" to paste into a map, a geo: URI that phones
/// open in their map app (RFC 5870), and an OpenStreetMap link for a browser.
struct MapLinks: Equatable {
    /// The coordinates as the daemon wrote them (5 decimals at most), never re-rounded here.
    let latitude: String
    let longitude: String

    var pair: String { "\(latitude), \(longitude)" }
    var geoURI: String { "geo:\(latitude),\(longitude)" }
    var openStreetMap: String {
        "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=17/\(latitude)/\(longitude)"
    }
}
