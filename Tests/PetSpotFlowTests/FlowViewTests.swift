import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@testable import PetSpotFlow

@Suite("Flow view")
struct FlowViewTests {
    /// A flow with every field filled, on the summary.
    static func fullFlow(locale: FlowLocale) throws -> Flow {
        var flow = Flow(id: "flow-9", locale: locale)
        try flow.update(#"{"chipNumber": "616093900123456"}"#)
        _ = try flow.continueStep(env: Fixture.env)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Fixture.Image.png(count: 12_595)))", "filename": "rex.png"}}"#)
        _ = try flow.continueStep(env: Fixture.env)
        try flow.update(
            #"""
            {"disappearanceDate": "2024-06-01", "species": "dog", "race": "Labrador", "gender": "female", "age": 3,
             "latitude": 52.2296756, "longitude": 21.0122287, "additionalDescription": "Red collar,\nshy."}
            """#)
        _ = try flow.continueStep(env: Fixture.env)
        try flow.update(#"{"contactPhone": "+48 600 700 800", "contactEmail": "owner@example.com"}"#)
        _ = try flow.continueStep(env: Fixture.env)
        try #require(flow.step == .summary)
        return flow
    }

    @Test("an active view has the members of PROTOCOL.md in order")
    func shape() throws {
        let view = Flow(id: "f", locale: .pl).view()
        #expect(view.objectValue?.keys == ["id", "state", "step", "locale", "screen", "values"])
        #expect(view["locale"] == "pl")
        #expect(view["screen"]?.objectValue?.keys == ["title", "progress", "heading", "text", "fields", "actions", "toast", "alert"])
        #expect(view["screen"]?["fields"]?.arrayValue?.first?.objectValue?.keys == [
            "name", "label", "placeholder", "value", "display", "required", "enabled", "error", "helper", "counter",
        ])
        #expect(view["values"]?.objectValue?.keys == FlowField.allCases.map(\.rawValue))
        #expect(view["values"]?.objectValue?.members.allSatisfy { $0.value == .null } == true)
    }

    @Test("the chip screen reads as FLOW.md says")
    func chipScreen() {
        let screen = Flow(id: "f", locale: .en).view()["screen"]
        #expect(screen?["heading"] == "Microchip number")
        #expect(screen?["text"] == .string(
            "Microchip identification is the most efficient way to reunite with your pet. "
                + "If your pet has been microchipped and you know the microchip number, please enter it here."))
    }

    @Test(
        "the summary shows every value as a person reads it, read-only",
        arguments: [
            (FlowLocale.en, [
                "61609-39001-23456", "image/png, 12.3 KiB", "1 June 2024", "Dog", "Labrador", "Female", "3 years",
                "52.22968", "21.01223", "Red collar,\nshy.", "+48600700800", "owner@example.com",
            ]),
            (.pl, [
                "61609-39001-23456", "image/png, 12,3 KiB", "1 czerwca 2024", "Pies", "Labrador", "Samica", "3 lata",
                "52.22968", "21.01223", "Red collar,\nshy.", "+48600700800", "owner@example.com",
            ]),
        ])
    func summary(locale: FlowLocale, displays: [String]) throws {
        let flow = try Self.fullFlow(locale: locale)
        let fields = try #require(flow.view()["screen"]?["fields"]?.arrayValue)
        #expect(fields.map { $0["name"] } == FlowField.allCases.map { .string($0.rawValue) })
        #expect(fields.allSatisfy { $0["enabled"] == false })
        #expect(fields.allSatisfy { $0["error"] == .null && $0["options"] == nil })
        #expect(fields.map { $0["display"]?.stringValue } == displays)
        #expect(flow.view()["screen"]?["progress"] == .null)
        #expect(flow.view()["screen"]?["actions"] == ["submit", "back"])
    }

    @Test("the summary marks empty values as not provided")
    func summaryEmpty() throws {
        let flow = try Fixture.flow(at: .summary, locale: .pl)
        let chip = try #require(flow.field(.chipNumber))
        #expect(chip["value"] == .null)
        #expect(chip["display"] == .null)
        #expect(chip["placeholder"] == "Nie podano")
        #expect(chip["label"] == "Numer mikrochipa")
    }

    @Test("values: photo as metadata, coordinates with 5 decimals, date as ISO")
    func valuesJSON() throws {
        let flow = try Self.fullFlow(locale: .en)
        let values = try #require(flow.view()["values"])
        #expect(values["chipNumber"] == "616093900123456")
        #expect(values["photo"]?.objectValue?.keys == ["mediaType", "bytes", "sha256"])
        #expect(values["disappearanceDate"] == "2024-06-01")
        #expect(values["age"] == 3)
        #expect(values["gender"] == "female")
        #expect(values == flow.values.json)
        let text = JSONWriter.string(values)
        #expect(text.contains(#""latitude":52.22968,"longitude":21.01223"#))
    }

    /// Views of every step and state a flow passes through: values on every step, refused
    /// values (display without value), a refused Continue (toast and errors), both alerts,
    /// every location note, the summary, and both ends.
    static func manyViews(locale: FlowLocale) throws -> [FlowView] {
        var flow = try Self.fullFlow(locale: locale)
        var views: [FlowView] = [flow.view(env: Fixture.env)]
        while flow.step != .chip {
            try flow.back()
            _ = try flow.continueStep(env: Fixture.env)
            views.append(flow.view(env: Fixture.env))
            try flow.back()
            views.append(flow.view(env: Fixture.env))
        }
        try flow.update(#"{"chipNumber": "999123"}"#)
        views.append(flow.view(env: Fixture.env))
        let settings = SettingsLocation(file: "/etc/petspotd/petspotd.json", key: "location.allow")
        let outcomes: [LocationOutcome] = [
            .permissionDenied(settings), .servicesDisabled(settings), .timeout, .unavailable(reason: "no provider"),
            .fix(LocationTests.fix("52.2296756", "21.0122287")),
        ]
        for outcome in outcomes {
            var located = try Fixture.flow(at: .description, locale: locale)
            try located.applyLocation(outcome)
            views.append(located.view(env: Fixture.env))
        }
        var withAlert = try Fixture.flow(at: .description, locale: locale)
        try withAlert.applyLocation(.permissionDenied(settings))
        views.append(withAlert.view(env: Fixture.env))
        _ = try withAlert.continueStep(env: Fixture.env)
        try withAlert.update(#"{"species": "cat", "age": "x\ny", "race": "a\r\nb"}"#)
        views.append(withAlert.view(env: Fixture.env))
        var refused = try Fixture.flow(at: .photo, locale: locale)
        try refused.update(#"{"photo": {"data": "bm90IGFuIGltYWdl", "filename": "notes.txt"}}"#)
        _ = try refused.continueStep(env: Fixture.env)
        views.append(refused.view(env: Fixture.env))
        try flow.cancel()
        views.append(flow.view(env: Fixture.env))
        var completed = try Self.fullFlow(locale: locale)
        completed.complete(reportID: "r-1")
        views.append(completed.view(env: Fixture.env))
        return views
    }

    @Test("no view has a raw newline when written, in any step, state or locale", arguments: FlowLocale.allCases)
    func noRawNewline(locale: FlowLocale) throws {
        for view in try Self.manyViews(locale: locale).map(\.json) {
            let bytes = JSONWriter.bytes(view)
            #expect(!bytes.contains(0x0A))
            #expect(!bytes.contains(0x0D))
            #expect(try JSONParser.parse(bytes) == view, "the view reads back as itself")
        }
    }

    @Test("a client reads every view back as the daemon built it", arguments: FlowLocale.allCases)
    func clientReadsBack(locale: FlowLocale) throws {
        let views = try Self.manyViews(locale: locale)
        #expect(views.contains { $0.screen?.toast != nil })
        #expect(views.contains { $0.screen?.alert != nil })
        #expect(views.contains { $0.screen?.fields.contains { $0.error != nil && $0.display != nil && $0.value == .null } == true })
        for view in views {
            #expect(try FlowView(json: try JSONParser.parse(JSONWriter.bytes(view.json))) == view)
        }
    }
}
