import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@Suite("Flow view on the wire")
struct FlowViewRoundTripTests {
    /// Written as the daemon sends it (one line of bytes), parsed and read as the client does.
    static func roundTrip(_ view: FlowView) throws -> FlowView {
        try FlowView(json: try JSONParser.parse(JSONWriter.bytes(view.json)))
    }

    @Test("a view with every kind of field, an error, a toast and an alert reads back equal")
    func representative() throws {
        #expect(try Self.roundTrip(Self.sample) == Self.sample)
    }

    @Test("ended flows read back equal", arguments: [
        FlowView(id: "f", state: .cancelled),
        FlowView(id: "f", state: .completed(reportID: "r-1")),
        FlowView(id: "f", state: .completed(reportID: nil)),
    ])
    func ended(view: FlowView) throws {
        #expect(try Self.roundTrip(view) == view)
    }

    @Test("2,000 generated views read back equal")
    func generated() throws {
        var random = SeededRandom(seed: 0x5EED_F10E)
        for index in 0..<2000 {
            let view = FlowView.random(using: &random)
            let back = try Self.roundTrip(view)
            #expect(back == view, "view \(index): \(JSONWriter.string(view.json))")
            if back != view { return }
        }
    }

    @Test("the members are written in the order of PROTOCOL.md; options only on select fields")
    func memberOrder() throws {
        let json = Self.sample.json
        #expect(json.objectValue?.keys == ["id", "state", "step", "locale", "screen", "values"])
        #expect(json["screen"]?.objectValue?.keys == ["title", "progress", "heading", "text", "fields", "actions", "toast", "alert"])
        let fields = try #require(json["screen"]?["fields"]?.arrayValue)
        #expect(fields[0].objectValue?.keys == [
            "name", "label", "placeholder", "value", "display", "required", "enabled", "error", "helper", "counter",
        ])
        #expect(fields[1].objectValue?.keys.last == "options")
        #expect(FlowView(id: "f", state: .cancelled).json.objectValue?.keys == ["id", "state"])
        #expect(FlowView(id: "f", state: .completed(reportID: "r")).json.objectValue?.keys == ["id", "state", "reportId"])
        #expect(JSONWriter.string(json["screen"]?["alert"]?["actions"] ?? .null)
            == #"[{"id":"cancel","label":"Cancel"},{"id":"openSettings","label":"Go to Settings","settings":{"file":"/etc/petspotd/petspotd.json","key":"location.enabled"}}]"#)
    }

    @Test("a view of the wrong shape is refused, naming the member", arguments: [
        (#"[]"#, "flow must be an object, not an array"),
        (#"{"state":"cancelled"}"#, "flow.id is missing"),
        (#"{"id":"f","state":"paused"}"#, #"flow.state must be "active", "completed", "cancelled" or "expired", not "paused""#),
        (#"{"id":"f","state":"completed"}"#, "flow.reportId is missing"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","values":{}}"#, "flow.screen is missing"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":{"current":1,"total":4,"label":1},"heading":"","text":"","fields":[],"actions":[],"toast":null,"alert":null},"values":{}}"#,
         "flow.screen.progress.label must be a string, not a number"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":null,"heading":"","text":"","fields":[{"name":"a"}],"actions":[],"toast":null,"alert":null},"values":{}}"#,
         "flow.screen.fields[0].label is missing"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":null,"heading":"","text":"","fields":[],"actions":["back",2],"toast":null,"alert":null},"values":{}}"#,
         "flow.screen.actions[1] must be a string, not a number"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":null,"heading":"","text":"","fields":[],"actions":[],"toast":false,"alert":null},"values":{}}"#,
         "flow.screen.toast must be a string or null, not a boolean"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":null,"heading":"","text":"","fields":[],"actions":[],"toast":null,"alert":{"title":"a","message":"m","actions":[{"id":"x","label":"X","settings":{"file":"f"}}]}},"values":{}}"#,
         "flow.screen.alert.actions[0].settings.key is missing"),
        (#"{"id":"f","state":"active","step":"chip","locale":"en","screen":{"title":"t","progress":null,"heading":"","text":"","fields":[],"actions":[],"toast":null,"alert":null},"values":[]}"#,
         "flow.values must be an object, not an array"),
    ])
    func refused(text: String, message: String) throws {
        #expect(throws: FlowViewError.self) { try FlowView(json: try JSONParser.parse(text)) }
        do {
            _ = try FlowView(json: try JSONParser.parse(text))
        } catch let error as FlowViewError {
            #expect(error.description == message)
        }
    }

    @Test("members a newer daemon adds are passed over")
    func unknownMembers() throws {
        var json = Self.sample.json.objectValue ?? [:]
        json["revision"] = 7
        var screen = json["screen"]?.objectValue ?? [:]
        screen["theme"] = "dark"
        json["screen"] = .object(screen)
        #expect(try FlowView(json: .object(json)) == Self.sample)
    }

    /// Every kind of field a daemon shows: free text with a counter, a select with options, a
    /// refused value (display without value), a disabled field, a photo's object value, numbers.
    static let sample = FlowView(id: "3f2a0c1e", state: .active(FlowView.Active(
        step: "description", locale: "en",
        screen: FlowView.Screen(
            title: "Animal description",
            progress: FlowView.Progress(current: 3, total: 4, label: "3/4"),
            heading: "Animal description",
            text: "When and where did your pet go missing?",
            fields: [
                FlowView.Field(name: "disappearanceDate", label: "Date of disappearance", placeholder: "YYYY-MM-DD",
                               value: "2024-06-01", display: "1 June 2024", required: true, enabled: true),
                FlowView.Field(name: "species", label: "Animal species", placeholder: "Select an option", required: true,
                               enabled: true, error: "Select the species.",
                               options: [FlowView.Option(id: "dog", name: "Dog"), FlowView.Option(id: "cat", name: "Cat")]),
                FlowView.Field(name: "race", label: "Animal race", placeholder: "e.g. Labrador", required: false, enabled: false),
                FlowView.Field(name: "age", label: "Animal age (optional)", display: "-1", required: false, enabled: true,
                               error: "Enter the age in whole years, from 0 to 40."),
                FlowView.Field(name: "latitude", label: "Latitude", value: .number(JSONNumber(validatedLiteral: "52.22968")),
                               display: "52.22968", required: false, enabled: true, helper: "Position found."),
                FlowView.Field(name: "additionalDescription", label: "Animal additional description (optional)",
                               value: "Red collar,\n\"shy\" \\ żółw 🐢", display: "Red collar,\n\"shy\" \\ żółw 🐢",
                               required: false, enabled: true, counter: "25/500"),
                FlowView.Field(name: "photo", label: "Photo", value: ["mediaType": "image/png", "bytes": 16, "sha256": "d9c9"],
                               display: "image/png, 16 B", required: true, enabled: true, helper: "rex.png, SHA-256 d9c9"),
            ],
            actions: ["continue", "back", "requestLocation"],
            toast: "Some information must be corrected",
            alert: FlowView.Alert(title: "Location services are off", message: "Turn them on in the settings.", actions: [
                FlowView.AlertAction(id: "cancel", label: "Cancel"),
                FlowView.AlertAction(id: "openSettings", label: "Go to Settings",
                                     settings: SettingsLocation(file: "/etc/petspotd/petspotd.json", key: "location.enabled")),
            ])),
        values: ["chipNumber": nil, "photo": ["mediaType": "image/png", "bytes": 16, "sha256": "d9c9"], "age": nil,
                 "latitude": .number(JSONNumber(validatedLiteral: "52.22968"))])))
}

/// SplitMix64: the same views on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension FlowView {
    static func random(using random: inout SeededRandom) -> FlowView {
        let id = String.random(using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return FlowView(id: id, state: .cancelled)
        case 1: return FlowView(id: id, state: .completed(reportID: Bool.random(using: &random) ? .random(using: &random) : nil))
        default: break
        }
        let fields = (0..<Int.random(in: 0...12, using: &random)).map { _ in
            Field(name: .random(using: &random), label: .random(using: &random), placeholder: .randomOrNil(using: &random),
                  value: .random(depth: 2, using: &random), display: .randomOrNil(using: &random),
                  required: .random(using: &random), enabled: .random(using: &random), error: .randomOrNil(using: &random),
                  helper: .randomOrNil(using: &random), counter: .randomOrNil(using: &random),
                  options: Bool.random(using: &random) ? nil : (0..<Int.random(in: 0...4, using: &random)).map { _ in
                      Option(id: .random(using: &random), name: .random(using: &random))
                  })
        }
        let alert: Alert? = Bool.random(using: &random) ? nil : Alert(
            title: .random(using: &random), message: .random(using: &random),
            actions: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                AlertAction(id: .random(using: &random), label: .random(using: &random),
                            settings: Bool.random(using: &random)
                                ? SettingsLocation(file: .random(using: &random), key: .random(using: &random)) : nil)
            })
        let current = Int.random(in: -3...1_000_000, using: &random)
        let screen = Screen(
            title: .random(using: &random),
            progress: Bool.random(using: &random) ? nil : Progress(current: current, total: current + 3, label: .random(using: &random)),
            heading: .random(using: &random), text: .random(using: &random), fields: fields,
            actions: (0..<Int.random(in: 0...4, using: &random)).map { _ in .random(using: &random) },
            toast: .randomOrNil(using: &random), alert: alert)
        let values = JSONObject(members: (0..<Int.random(in: 0...12, using: &random)).map { index in
            (key: "field\(index)", value: .random(depth: 2, using: &random))
        })
        return FlowView(id: id, state: .active(Active(step: .random(using: &random), locale: .random(using: &random),
                                                      screen: screen, values: values)))
    }
}

extension String {
    /// Short text from a pool that holds what a writer must escape, and text it must not.
    static func random(using random: inout SeededRandom) -> String {
        let pieces = ["a", "Pies", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{7F}", "/", "ż", "🐢", "e\u{301}", "\u{2028}", "12345-6", "…", ""]
        return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func randomOrNil(using random: inout SeededRandom) -> String? {
        Bool.random(using: &random) ? nil : String.random(using: &random)
    }
}

extension JSONValue {
    /// Any JSON value a field may hold: null, booleans, numbers as written, text, arrays, objects.
    static func random(depth: Int, using random: inout SeededRandom) -> JSONValue {
        let numbers = ["0", "-1", "4", "52.22968", "-0.5", "1e3", "123456789012345678901234567890", "2.50"]
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(.random(using: &random))
        case 2: return .number(JSONNumber(validatedLiteral: numbers.randomElement(using: &random)!))
        case 3, 4: return .string(.random(using: &random))
        case 5: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in .random(depth: depth - 1, using: &random) })
        default:
            return .object(JSONObject(members: (0..<Int.random(in: 0...3, using: &random)).map { index in
                (key: "k\(index)", value: .random(depth: depth - 1, using: &random))
            }))
        }
    }
}
