import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@testable import PetSpotFlow

@Suite("Location on the description step")
struct LocationTests {
    static let settings = SettingsLocation(file: "/etc/petspotd/petspotd.json", key: "location.allow")

    static func fix(_ latitude: String, _ longitude: String, source: String = "gpsd", accuracy: Double? = 4.5) -> LocationFix {
        LocationFix(
            latitude: Coordinate(DecimalLiteral(parsing: latitude)!)!,
            longitude: Coordinate(DecimalLiteral(parsing: longitude)!)!,
            source: source, time: "2024-06-15T10:00:00Z", accuracyMetres: accuracy)
    }

    @Test("a fix fills both coordinates, rounded, and the helper names its source")
    func fixFills() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.applyLocation(.fix(Self.fix("52.2296756", "21.0122287", source: "simulated")))
        #expect(flow.values.latitude?.text == "52.22968")
        #expect(flow.values.longitude?.text == "21.01223")
        let confirmation = StringCatalog.english.locationFound("simulated")
        #expect(confirmation.contains("simulated"))
        #expect(flow.field(.latitude)?["helper"] == .string(confirmation))
        #expect(flow.field(.longitude)?["helper"]?.stringValue?.hasPrefix(confirmation) == true)
        #expect(flow.field(.latitude)?["enabled"] == true, "the fields stay editable")
        #expect(flow.view()["screen"]?["alert"] == .null)
        #expect(try flow.continueStep(env: Fixture.env))
    }

    @Test("typing a coordinate after a fix replaces the confirmation")
    func editAfterFix() throws {
        var flow = try Fixture.flow(at: .description)
        try flow.applyLocation(.fix(Self.fix("52.1", "21.0")))
        try flow.update(#"{"latitude": "52.2"}"#)
        #expect(flow.values.latitude?.text == "52.20000")
        #expect(flow.field(.latitude)?["helper"] == .null)
    }

    @Test("a fix clears errors the coordinates had")
    func fixClearsErrors() throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"latitude": 200}"#)
        #expect(flow.error(of: .latitude) != nil)
        try flow.applyLocation(.fix(Self.fix("52.1", "21.0")))
        #expect(flow.error(of: .latitude) == nil)
    }

    @Test(
        "permission denied and services disabled open an alert with Cancel and Go to Settings",
        arguments: [
            (LocationOutcome.permissionDenied(settings), StringCatalog.english.permissionDeniedAlert),
            (.servicesDisabled(settings), StringCatalog.english.servicesDisabledAlert),
        ])
    func alert(outcome: LocationOutcome, copy: StringCatalog.AlertCopy) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"latitude": 1, "longitude": 2}"#)
        let values = flow.values
        try flow.applyLocation(outcome)
        #expect(flow.values == values)
        #expect(flow.view()["screen"]?["alert"] == [
            "title": .string(copy.title),
            "message": .string(copy.message),
            "actions": [
                ["id": "cancel", "label": "Cancel"],
                [
                    "id": "openSettings", "label": "Go to Settings",
                    "settings": ["file": "/etc/petspotd/petspotd.json", "key": "location.allow"],
                ],
            ],
        ])
        try flow.dismissAlert()
        #expect(flow.view()["screen"]?["alert"] == .null)
        #expect(flow.values == values, "Cancel leaves the fields as they were")
    }

    @Test(
        "no fix in time or no provider gives inline guidance; requesting again stays possible",
        arguments: [
            (LocationOutcome.timeout, StringCatalog.english.locationTimedOut),
            (.unavailable(reason: "gpsd: connection refused"), StringCatalog.english.locationUnavailable),
        ])
    func guidance(outcome: LocationOutcome, text: String) throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        let values = flow.values
        try flow.applyLocation(outcome)
        #expect(flow.values == values)
        #expect(flow.field(.latitude)?["helper"] == .string(text))
        #expect(flow.view()["screen"]?["alert"] == .null)
        #expect(flow.view()["screen"]?["actions"]?.arrayValue?.contains("requestLocation") == true)
        #expect(!JSONWriter.string(flow.view()).contains("connection refused"), "the reason is for logs")
        #expect(try flow.continueStep(env: Fixture.env), "the user can still go on without coordinates")
    }

    @Test("a fix outside the globe is not stored", arguments: [("90.00001", "0"), ("0", "-180.00001")])
    func brokenProvider(latitude: String, longitude: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.applyLocation(.fix(Self.fix(latitude, longitude)))
        #expect(flow.values.latitude == nil)
        #expect(flow.values.longitude == nil)
    }

    @Test("a location is taken on the description step only", arguments: [StepID.chip, .photo, .contact, .summary])
    func wrongStep(step: StepID) throws {
        var flow = try Fixture.flow(at: step)
        #expect(throws: FlowError.self) { try flow.applyLocation(.fix(Self.fix("52.1", "21.0"))) }
        #expect(flow.values.latitude == nil)
    }

    @Test(
        "the location object of the protocol",
        arguments: [
            (
                LocationOutcome.fix(fix("52.2296756", "-0.000005", accuracy: 4.2)),
                #"{"status":"ok","fix":{"latitude":52.22968,"longitude":-0.00001,"source":"gpsd","time":"2024-06-15T10:00:00Z","accuracy":4.2},"message":"Position found."}"#
            ),
            (
                .fix(fix("1", "2", accuracy: nil)),
                #"{"status":"ok","fix":{"latitude":1.00000,"longitude":2.00000,"source":"gpsd","time":"2024-06-15T10:00:00Z"},"message":"Position found."}"#
            ),
            (
                .permissionDenied(settings),
                #"{"status":"permissionDenied","message":"You are not allowed to use the location.","settings":{"file":"/etc/petspotd/petspotd.json","key":"location.allow"}}"#
            ),
            (
                .servicesDisabled(settings),
                #"{"status":"servicesDisabled","message":"Location services are turned off.","settings":{"file":"/etc/petspotd/petspotd.json","key":"location.allow"}}"#
            ),
            (.timeout, #"{"status":"timeout","message":"No position came in time."}"#),
            (.unavailable(reason: "no provider"), #"{"status":"unavailable","message":"No location source is available."}"#),
        ])
    func protocolJSON(outcome: LocationOutcome, json: String) {
        #expect(JSONWriter.string(outcome.view(locale: .en).json) == json)
    }

    @Test("location messages are localised")
    func polishMessage() {
        #expect(LocationOutcome.timeout.view(locale: .pl).message == "Nie udało się ustalić pozycji na czas.")
    }
}
