import PetSpotJSON
import PetSpotViews

/// The curated list of species a report may name, in the order a person should see them.
public struct SpeciesCatalog: Sendable {
    public static let maxIDLength = 32

    public let species: [Species]
    private let indexByID: [String: Int]

    /// Ids are 1-32 characters of `a-z` and `-`, unique; every entry has a name in every locale.
    public init(species: [Species]) throws(SpeciesCatalogError) {
        guard !species.isEmpty else {
            throw SpeciesCatalogError(path: "species", problem: "the list is empty; a report needs at least one species")
        }
        var indexByID: [String: Int] = [:]
        for (index, entry) in species.enumerated() {
            let path = "species[\(index)]"
            guard SpeciesCatalog.isValidID(entry.id) else {
                throw SpeciesCatalogError(
                    path: "\(path).id",
                    problem: "\"\(entry.id)\" is not an id: use 1-\(SpeciesCatalog.maxIDLength) characters a-z and '-'")
            }
            if let first = indexByID[entry.id] {
                throw SpeciesCatalogError(path: "\(path).id", problem: "\"\(entry.id)\" is already used by species[\(first)]")
            }
            for locale in FlowLocale.allCases {
                let name = entry.names[locale] ?? ""
                guard !name.allSatisfy(\.isWhitespace) else {
                    throw SpeciesCatalogError(path: "\(path).names.\(locale.rawValue)", problem: "missing or empty")
                }
            }
            indexByID[entry.id] = index
        }
        self.species = species
        self.indexByID = indexByID
    }

    /// Reads `{"species": [{"id": "dog", "names": {"en": "Dog", "pl": "Pies"}}, ...]}`.
    /// Unknown keys are refused so that a typo in the file cannot pass silently (the JSON
    /// parser already refuses a repeated one).
    public init(json: JSONValue) throws(SpeciesCatalogError) {
        let root = try SpeciesCatalog.object(json, at: "", allowedKeys: ["species"])
        guard let list = root["species"] else {
            throw SpeciesCatalogError(path: "species", problem: "missing")
        }
        guard let entries = list.arrayValue else {
            throw SpeciesCatalogError(path: "species", problem: "expected an array, got \(list.typeName)")
        }
        var species: [Species] = []
        for (index, entry) in entries.enumerated() {
            let path = "species[\(index)]"
            let object = try SpeciesCatalog.object(entry, at: path, allowedKeys: ["id", "names"])
            guard let idValue = object["id"] else {
                throw SpeciesCatalogError(path: "\(path).id", problem: "missing")
            }
            guard let id = idValue.stringValue else {
                throw SpeciesCatalogError(path: "\(path).id", problem: "expected a string, got \(idValue.typeName)")
            }
            guard let namesValue = object["names"] else {
                throw SpeciesCatalogError(path: "\(path).names", problem: "missing")
            }
            let namesObject = try SpeciesCatalog.object(
                namesValue, at: "\(path).names", allowedKeys: Set(FlowLocale.allCases.map(\.rawValue)))
            var names: [FlowLocale: String] = [:]
            for (key, value) in namesObject {
                // The key set was checked above, so every key is a locale.
                guard let locale = FlowLocale(rawValue: key) else { continue }
                guard let name = value.stringValue else {
                    throw SpeciesCatalogError(path: "\(path).names.\(key)", problem: "expected a string, got \(value.typeName)")
                }
                names[locale] = name
            }
            species.append(Species(id: id, names: names))
        }
        try self.init(species: species)
    }

    public func contains(_ id: String) -> Bool {
        indexByID[id] != nil
    }

    public func name(of id: String, locale: FlowLocale) -> String? {
        indexByID[id].map { species[$0].name(in: locale) }
    }

    /// The species in list order, in the locale's words: `species.list` and the species field
    /// of the description step.
    public func options(locale: FlowLocale) -> [FlowView.Option] {
        species.map { FlowView.Option(id: $0.id, name: $0.name(in: locale)) }
    }

    private static func isValidID(_ id: String) -> Bool {
        (1...maxIDLength).contains(id.utf8.count)
            && id.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    private static func object(_ value: JSONValue, at path: String, allowedKeys: Set<String>) throws(SpeciesCatalogError) -> JSONObject {
        guard let object = value.objectValue else {
            throw SpeciesCatalogError(path: path, problem: "expected an object, got \(value.typeName)")
        }
        for key in object.keys {
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            guard allowedKeys.contains(key) else {
                let expected = allowedKeys.sorted().joined(separator: ", ")
                throw SpeciesCatalogError(path: keyPath, problem: "unknown key (expected: \(expected))")
            }
        }
        return object
    }
}
