import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

@Suite("A whole report over the socket", .serialized)
struct WholeReportTests {
    @Test("start, five steps, refusal with toast, location, submit, retried submit, stored for good")
    func wholeReport() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()

        let started = try conn.result("flow.start")["flow"]!
        #expect(started["step"] == "chip")
        #expect(started["state"] == "active")
        #expect(started[path: "screen", "progress", "label"] == "1/4")
        #expect(started[path: "screen", "title"] == "Microchip number")
        let flowID = started["id"]!

        // Chip: only digits kept, formatted for display.
        let chip = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": "abc123def456"]])["flow"]!
        #expect(chip[path: "values", "chipNumber"] == "123456")
        #expect(chip.field("chipNumber")?["display"] == "12345-6")
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))

        // Photo step: skip it (optional), then on description Continue is refused until valid.
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        let refused = try conn.result("flow.continue", ["flowId": flowID])
        #expect(refused["accepted"] == false)
        #expect(refused[path: "flow", "step"] == "description")
        #expect(refused[path: "flow", "screen", "toast"] == "Some information must be corrected")
        #expect(refused["flow"]!.field("species")?["error"]?.stringValue != nil)
        #expect(refused["flow"]!.field("gender")?["error"]?.stringValue != nil)
        // The date defaulted to today on entering the step, so it has no error.
        #expect(refused["flow"]!.field("disappearanceDate")?["error"] == .null)

        // Request GPS position fills both coordinates, rounded to 5 decimals.
        let located = try conn.result("flow.requestLocation", ["flowId": flowID])
        #expect(located[path: "location", "status"] == "ok")
        #expect(located[path: "location", "fix", "source"] == "simulated")
        #expect(JSONWriter.string(located[path: "location", "fix", "latitude"]!) == "52.22968")
        #expect(JSONWriter.string(located[path: "flow", "values", "longitude"]!) == "21.01223")

        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["species": "cat", "race": "Maine Coon", "gender": "female"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))

        // Contact: at least one way to answer.
        let noContact = try conn.result("flow.continue", ["flowId": flowID])
        #expect(noContact["accepted"] == false)
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["contactEmail": "owner@example.org"]])
        let summary = try conn.result("flow.continue", ["flowId": flowID])
        #expect(summary[path: "flow", "step"] == "summary")
        #expect(summary[path: "flow", "screen", "progress"] == .null)
        #expect(summary[path: "flow", "screen", "actions"] == ["submit", "back"])

        let submitted = try conn.result("flow.submit", ["flowId": flowID])
        let report = submitted["report"]!
        #expect(report["flowId"] == flowID)
        #expect(report[path: "values", "species"] == "cat")
        #expect(submitted[path: "flow", "state"] == "completed")

        // A retried submit returns the same report, never a second one.
        let again = try conn.result("flow.submit", ["flowId": flowID])
        #expect(again[path: "report", "id"] == report["id"])
        #expect(try conn.result("flow.get", ["flowId": flowID])["flow"] == ["id": flowID, "state": "completed", "reportId": report["id"]!])
        #expect(try conn.failure("flow.update", ["flowId": flowID, "values": ["chipNumber": "1"]]).kind == .wrongStep)
        #expect(try conn.failure("flow.back", ["flowId": flowID]).kind == .wrongStep)

        let list = try conn.result("reports.list")
        #expect(list["reports"]?.arrayValue?.count == 1)
        #expect(list["cursor"] == .null)
        #expect(try conn.result("reports.get", ["reportId": report["id"]!])["report"] == report)
    }

    @Test("the stored report holds every value as normalised, the photo as metadata")
    func storedValues() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let (_, submit) = try fileReport(conn)
        let values = submit[path: "report", "values"]!
        #expect(values["chipNumber"] == "61609123456789")
        #expect(values["race"] == "Beagle")
        #expect(values["age"] == 4)
        #expect(JSONWriter.string(values["latitude"]!) == "52.22968")
        #expect(values["contactPhone"] == "+48123456789")
        #expect(values["contactEmail"] == "owner@example.org")
        #expect(values[path: "photo", "mediaType"] == "image/png")
        #expect(values[path: "photo", "bytes"] == .int(pngBytes.count))
        #expect(values["photo"]?["data"] == nil)
    }

    @Test("back keeps values; back on the first step cancels the flow for good")
    func backAndCancel() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": "12345"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        let back = try conn.result("flow.back", ["flowId": flowID])["flow"]!
        #expect(back["step"] == "chip")
        #expect(back[path: "values", "chipNumber"] == "12345")
        let cancelled = try conn.result("flow.back", ["flowId": flowID])["flow"]!
        #expect(cancelled["state"] == "cancelled")
        for method in ["flow.get", "flow.continue", "flow.back", "flow.cancel", "flow.submit"] {
            #expect(try conn.failure(method, ["flowId": flowID]).kind == .flowNotFound, "\(method)")
        }

        let second = try conn.result("flow.start")[path: "flow", "id"]!
        #expect(try conn.result("flow.cancel", ["flowId": second])[path: "flow", "state"] == "cancelled")
        #expect(try conn.failure("flow.get", ["flowId": second]).kind == .flowNotFound)
    }

    @Test("values only for the current step; unknown fields are named")
    func wrongStepAndUnknownField() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        let wrongStep = try conn.failure("flow.update", ["flowId": flowID, "values": ["species": "dog"]])
        #expect(wrongStep.kind == .wrongStep)
        #expect(wrongStep.message.contains("species"))
        let unknown = try conn.failure("flow.update", ["flowId": flowID, "values": ["chipNumbr": "1"]])
        #expect(unknown.kind == .invalidParams)
        #expect(unknown.parameter == "values.chipNumbr")
        let typo = try conn.failure("flow.get", ["flowID": flowID])
        #expect(typo.kind == .invalidParams)
        #expect(try conn.failure("flow.requestLocation", ["flowId": flowID]).kind == .wrongStep)
        #expect(try conn.failure("flow.submit", ["flowId": flowID]).kind == .wrongStep)
        #expect(try conn.failure("flow.start", ["locale": "de"]).parameter == "locale")
    }

    @Test("Polish copy when the flow asks for it")
    func polish() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flow = try conn.result("flow.start", ["locale": "pl"])["flow"]!
        #expect(flow["locale"] == "pl")
        #expect(flow[path: "screen", "title"] != "Microchip number")
        let species = try conn.result("species.list", ["locale": "pl"])["species"]!.arrayValue!
        #expect(species.contains { $0["id"] == "dog" && $0["name"] == "Pies" })
    }

    @Test("location outcomes reach the screen: permission alert, settings prompt, timeout guidance", arguments: [
        ("permission-denied", "permissionDenied"), ("settings-prompt", "servicesDisabled"), ("no-fix", "timeout"),
    ])
    func locationOutcomes(mode: String, status: String) throws {
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", mode]).start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        let answer = try conn.result("flow.requestLocation", ["flowId": flowID, "timeoutMs": 300])
        #expect(answer[path: "location", "status"] == .string(status))
        #expect(answer[path: "flow", "values", "latitude"] == .null)
        if status == "timeout" {
            #expect(answer[path: "flow", "screen", "alert"] == .null)
            #expect(answer[path: "flow", "screen", "actions"]?.arrayValue?.contains("requestLocation") == true)
        } else {
            let actions = answer[path: "flow", "screen", "alert", "actions"]?.arrayValue ?? []
            #expect(actions.map { $0["id"] } == ["cancel", "openSettings"])
            #expect(actions.last?[path: "settings", "file"] == .string(daemon.configPath))
            #expect(answer[path: "location", "settings", "key"]?.stringValue != nil)
            let dismissed = try conn.result("flow.dismissAlert", ["flowId": flowID])
            #expect(dismissed[path: "flow", "screen", "alert"] == .null)
        }
    }
}
