import Foundation
import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Species catalog")
struct SpeciesCatalogTests {
    @Test("the shipped config/species.json is a valid catalog")
    func shippedFile() throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/species.json")
        let catalog = try SpeciesCatalog(json: JSONParser.parse(Array(try Data(contentsOf: url))))
        #expect(catalog.species.first?.id == "dog")
        #expect(catalog.species.count >= 10)
        #expect(catalog.name(of: "guinea-pig", locale: .pl) == "Świnka morska")
        #expect(catalog.name(of: "other", locale: .en) == "Other")
    }

    @Test("species.list answers ids and localised names in file order")
    func listJSON() throws {
        let catalog = try SpeciesCatalog(json: JSONParser.parse(#"""
            {"species": [{"id": "dog", "names": {"en": "Dog", "pl": "Pies"}},
                         {"id": "cat", "names": {"pl": "Kot", "en": "Cat"}}]}
            """#))
        #expect(catalog.options(locale: .pl) == [.init(id: "dog", name: "Pies"), .init(id: "cat", name: "Kot")])
        #expect(catalog.options(locale: .en) == [.init(id: "dog", name: "Dog"), .init(id: "cat", name: "Cat")])
        #expect(catalog.name(of: "cow", locale: .en) == nil)
    }

    @Test(
        "a malformed file is refused naming the entry and key",
        arguments: [
            (#"[]"#, ""),
            (#"{}"#, "species"),
            (#"{"species": {}}"#, "species"),
            (#"{"species": [], "colours": []}"#, "colours"),
            (#"{"species": []}"#, "species"),
            (#"{"species": ["dog"]}"#, "species[0]"),
            (#"{"species": [{"id": "dog", "names": {"en": "Dog", "pl": "Pies"}, "colour": "brown"}]}"#, "species[0].colour"),
            (#"{"species": [{"names": {"en": "Dog", "pl": "Pies"}}]}"#, "species[0].id"),
            (#"{"species": [{"id": 1, "names": {"en": "Dog", "pl": "Pies"}}]}"#, "species[0].id"),
            (#"{"species": [{"id": "dog"}]}"#, "species[0].names"),
            (#"{"species": [{"id": "dog", "names": {"en": "Dog", "pl": "Pies", "de": "Hund"}}]}"#, "species[0].names.de"),
            (#"{"species": [{"id": "dog", "names": {"en": "Dog"}}]}"#, "species[0].names.pl"),
            (#"{"species": [{"id": "dog", "names": {"en": "Dog", "pl": " "}}]}"#, "species[0].names.pl"),
            (#"{"species": [{"id": "dog", "names": {"en": "Dog", "pl": 5}}]}"#, "species[0].names.pl"),
            (
                #"{"species": [{"id": "dog", "names": {"en": "Dog", "pl": "Pies"}}, {"id": "dog", "names": {"en": "Hound", "pl": "Ogar"}}]}"#,
                "species[1].id"
            ),
        ])
    func malformed(json: String, path: String) throws {
        let value = try JSONParser.parse(json)
        let error = #expect(throws: SpeciesCatalogError.self) { try SpeciesCatalog(json: value) }
        #expect(error?.path == path)
        #expect(error?.description.hasPrefix(path) == true)
    }

    @Test(
        "ids are 1-32 characters of a-z and '-'",
        arguments: [
            ("dog", true), ("guinea-pig", true), (String(repeating: "a", count: 32), true),
            ("", false), ("Dog", false), ("dog_1", false), ("kot ", false), ("żółw", false), (String(repeating: "a", count: 33), false),
        ])
    func ids(id: String, valid: Bool) {
        do {
            _ = try SpeciesCatalog(species: [Species(id: id, names: [.en: "X", .pl: "Y"])])
            #expect(valid)
        } catch {
            #expect(!valid)
            #expect(error.path == "species[0].id")
        }
    }

    @Test("an unknown key names itself in the description")
    func unknownKeyDescription() throws {
        let value = try JSONParser.parse(#"{"species": [{"id": "dog", "name": "Dog"}]}"#)
        let error = #expect(throws: SpeciesCatalogError.self) { try SpeciesCatalog(json: value) }
        #expect(error?.description.contains("species[0].name") == true)
        #expect(error?.description.contains("unknown key") == true)
    }
}
