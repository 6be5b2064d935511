import PetSpotViews
import Logging
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotSettings
import PetSpotSystem

/// Each location provider a configuration may name and how it is made from the settings: the
/// one list of providers. `location.providers` accepts exactly these names.
struct LocationProviderFactory: Sendable {
    struct Context {
        let clock: DaemonClock
        let logger: Logger
        /// The service a reload replaces: a provider whose settings are unchanged is kept.
        let previous: LocationService?
    }

    let name: String
    let make: @Sendable (DaemonConfiguration, Context) throws(ConfigurationError) -> any LocationProvider

    static let all: [LocationProviderFactory] = [
        LocationProviderFactory(name: "gpsd") { c, context throws(ConfigurationError) in
            let settings = GpsdProvider.Settings(host: c.gpsdHost, port: c.gpsdPort, reconnectMax: .milliseconds(c.gpsdReconnectMaxMs))
            // Kept across a reload, so the warm watch is not dropped.
            if let kept = context.previous?.providers.compactMap({ $0 as? GpsdProvider }).first(where: { $0.settings == settings }) {
                return kept
            }
            return GpsdProvider(settings: settings, logger: context.logger, clock: context.clock)
        },
        LocationProviderFactory(name: "simulated") { c, context throws(ConfigurationError) in
            var track: [SimulatedProvider.Position] = []
            for setting in [c.simulatedPosition] + c.simulatedTrack {
                guard let lat = DecimalLiteral(parsing: setting.latitude, lenient: true).flatMap(Coordinate.init),
                      let lon = DecimalLiteral(parsing: setting.longitude, lenient: true).flatMap(Coordinate.init)
                else { throw ConfigurationError("location.simulated.position: \(setting.latitude),\(setting.longitude) is not a position") }
                track.append(.init(latitude: lat, longitude: lon))
            }
            return SimulatedProvider(mode: SimulatedProvider.Mode(rawValue: c.simulatedMode) ?? .fix, track: track, clock: context.clock)
        },
        LocationProviderFactory(name: "static") { c, context throws(ConfigurationError) in
            guard let setting = c.staticPosition else {
                throw ConfigurationError("location.static.position: the static provider needs the box's surveyed position, [latitude, longitude]")
            }
            guard let lat = DecimalLiteral(parsing: setting.latitude, lenient: true).flatMap(Coordinate.init),
                  let lon = DecimalLiteral(parsing: setting.longitude, lenient: true).flatMap(Coordinate.init)
            else { throw ConfigurationError("location.static.position: \(setting.latitude),\(setting.longitude) is not a position") }
            return StaticProvider(latitude: lat, longitude: lon, accuracyMetres: c.staticAccuracyMetres, clock: context.clock)
        },
    ]

    static func named(_ name: String) -> LocationProviderFactory? {
        all.first { $0.name == name }
    }
}
