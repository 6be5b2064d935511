import Foundation
import PetSpotJSON
import Testing
import PetSpotViews

@testable import PetSpotFlow

/// A fixed world for every test: today is 2024-06-15 and three species exist.
enum Fixture {
    static let today = CalendarDate(year: 2024, month: 6, day: 15)!

    static let species: SpeciesCatalog = {
        do {
            return try SpeciesCatalog(species: [
                Species(id: "dog", names: [.en: "Dog", .pl: "Pies"]),
                Species(id: "cat", names: [.en: "Cat", .pl: "Kot"]),
                Species(id: "guinea-pig", names: [.en: "Guinea pig", .pl: "Świnka morska"]),
            ])
        } catch {
            fatalError("fixture catalog refused: \(error)")
        }
    }()

    static let env = FlowEnvironment(today: today, species: species)

    /// The values that make each step valid, used to walk a flow forward.
    static let validValues: [StepID: String] = [
        .description: #"{"species": "dog", "race": "Labrador", "gender": "female"}"#,
        .contact: #"{"contactEmail": "owner@example.com"}"#,
    ]

    /// A new flow walked forward with valid values until it shows `step`; with `filled`, the
    /// valid values of `step` itself are entered too.
    static func flow(at step: StepID, filled: Bool = false, locale: FlowLocale = .en, env: FlowEnvironment = env) throws -> Flow {
        var flow = Flow(id: "flow-1", locale: locale)
        while flow.step != step {
            if let values = validValues[flow.step] {
                try flow.update(values, env: env)
            }
            try #require(try flow.continueStep(env: env), "could not leave step \(flow.step)")
        }
        if filled, let values = validValues[step] {
            try flow.update(values, env: env)
        }
        return flow
    }

    static func object(_ json: String) throws -> JSONObject {
        try #require(try JSONParser.parse(json).objectValue, "not a JSON object: \(json)")
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Bytes that start like a file of each type, padded to `count`.
    enum Image {
        static func jpeg(count: Int = 32) -> [UInt8] { padded([0xFF, 0xD8, 0xFF, 0xE0], to: count) }
        static func png(count: Int = 32) -> [UInt8] { padded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], to: count) }
        static func webp(count: Int = 32) -> [UInt8] {
            padded(Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8), to: count)
        }
        static func heif(brand: String, count: Int = 32) -> [UInt8] {
            padded([0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8), to: count)
        }
        private static func padded(_ header: [UInt8], to count: Int) -> [UInt8] {
            header + [UInt8](repeating: 0x42, count: max(0, count - header.count))
        }
    }
}

extension Flow {
    /// `update` with the values written as JSON text, as a client sends them.
    mutating func update(_ json: String, env: FlowEnvironment = Fixture.env) throws {
        try update(Fixture.object(json), env: env)
    }

    /// The update's `FlowError`, or nil when it was accepted.
    mutating func updateError(_ json: String, env: FlowEnvironment = Fixture.env) throws -> FlowError? {
        let values = try Fixture.object(json)
        do {
            try update(values, env: env)
            return nil
        } catch {
            return error
        }
    }

    /// The view as it goes on the wire.
    func view() -> JSONValue {
        view(env: Fixture.env).json
    }

    /// One field of the current screen.
    func field(_ name: FlowField, env: FlowEnvironment = Fixture.env) -> JSONValue? {
        view(env: env).json["screen"]?["fields"]?.arrayValue?.first { $0["name"] == .string(name.rawValue) }
    }

    func error(of name: FlowField) -> String? {
        field(name)?["error"]?.stringValue
    }

    var toast: JSONValue? {
        view()["screen"]?["toast"]
    }
}
