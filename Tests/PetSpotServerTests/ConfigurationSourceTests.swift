import Foundation
import PetSpotFlow
import PetSpotJSON
import Testing

@testable import PetSpotServer

@Suite("Where the configuration comes from")
struct ConfigurationSourceTests {
    @Test(
        "--config wins; else the first file of the search list that exists; else built-in defaults",
        arguments: [
            ("my.json", [] as [String], ConfigurationSource.named("my.json")),
            ("missing.json", ["config/petspotd.json", "/etc/petspotd/petspotd.json"], .named("missing.json")),
            (nil, ["config/petspotd.json", "/etc/petspotd/petspotd.json"], .found("config/petspotd.json")),
            (nil, ["/etc/petspotd/petspotd.json"], .found("/etc/petspotd/petspotd.json")),
            (nil, [], .builtInDefaults),
        ] as [(String?, [String], ConfigurationSource)])
    func locate(named: String?, existing: [String], expected: ConfigurationSource) {
        #expect(ConfigurationSource.locate(named: named) { existing.contains($0) } == expected)
    }

    @Test("the search list looks in the checkout, then where the package installs the file")
    func searchList() {
        #expect(ConfigurationSource.searchList == ["config/petspotd.json", "/etc/petspotd/petspotd.json"])
        #expect(ConfigurationSource.builtInDefaults.file == nil)
        #expect(ConfigurationSource.builtInDefaults.description.contains("built-in defaults"))
    }

    @Test("the built-in species list is the one config/species.json ships")
    func builtInSpecies() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/species.json")
        let shipped = try SpeciesCatalog(json: try JSONParser.parse(Array(try Data(contentsOf: file))))
        #expect(shipped.species == SpeciesCatalog.builtIn.species)
    }
}
