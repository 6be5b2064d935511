extension SpeciesCatalog {
    /// The curated list the daemon uses when it runs on built-in defaults, without any
    /// configuration file; config/species.json ships the same list (a test keeps them equal).
    public static let builtIn: SpeciesCatalog = {
        let species = [
            Species(id: "dog", names: [.en: "Dog", .pl: "Pies"]),
            Species(id: "cat", names: [.en: "Cat", .pl: "Kot"]),
            Species(id: "rabbit", names: [.en: "Rabbit", .pl: "Królik"]),
            Species(id: "ferret", names: [.en: "Ferret", .pl: "Fretka"]),
            Species(id: "guinea-pig", names: [.en: "Guinea pig", .pl: "Świnka morska"]),
            Species(id: "hamster", names: [.en: "Hamster", .pl: "Chomik"]),
            Species(id: "rat", names: [.en: "Rat", .pl: "Szczur"]),
            Species(id: "bird", names: [.en: "Bird", .pl: "Ptak"]),
            Species(id: "tortoise", names: [.en: "Tortoise", .pl: "Żółw"]),
            Species(id: "horse", names: [.en: "Horse", .pl: "Koń"]),
            Species(id: "other", names: [.en: "Other", .pl: "Inny"]),
        ]
        do {
            return try SpeciesCatalog(species: species)
        } catch {
            preconditionFailure("the built-in species list breaks its own rules: \(error)")
        }
    }()
}
