import PetSpotClient
import PetSpotProtocol
import PetSpotViews

/// Species ids ("dog") with the names a person reads ("Dog"), from the daemon's species list.
struct SpeciesNames {
    private let names: [String: String]

    init(_ daemon: DaemonCalling, locale: FlowLocale = .en) {
        var names: [String: String] = [:]
        if case .success(let result)? = try? daemon.call(SpeciesList.self, SpeciesList.Params(locale: locale)) {
            for species in result.species { names[species.id] = species.name }
        }
        self.names = names
    }

    /// The name, or the id itself for a species no longer on the list.
    func name(_ id: String?) -> String? {
        id.map { names[$0] ?? $0 }
    }
}
