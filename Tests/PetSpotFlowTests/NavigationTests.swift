import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Navigation")
struct NavigationTests {
    @Test("Continue walks the steps in order with progress 1/4...4/4 and none on the summary")
    func forward() throws {
        var flow = Flow(id: "f", locale: .en)
        var seen: [(StepID, JSONValue?)] = []
        while true {
            seen.append((flow.step, flow.view()["screen"]?["progress"]))
            guard flow.step != .summary else { break }
            if let values = Fixture.validValues[flow.step] { try flow.update(values) }
            #expect(try flow.continueStep(env: Fixture.env))
        }
        #expect(seen.map(\.0) == [.chip, .photo, .description, .contact, .summary])
        #expect(seen.map(\.1) == [
            ["current": 1, "total": 4, "label": "1/4"],
            ["current": 2, "total": 4, "label": "2/4"],
            ["current": 3, "total": 4, "label": "3/4"],
            ["current": 4, "total": 4, "label": "4/4"],
            .null,
        ])
    }

    @Test(
        "the step titles and actions of each screen",
        arguments: [
            (StepID.chip, "Microchip number", ["continue", "back"]),
            (.photo, "Animal photo", ["continue", "back"]),
            (.description, "Animal description", ["continue", "back", "requestLocation"]),
            (.contact, "Contact details", ["continue", "back"]),
            (.summary, "Summary", ["submit", "back"]),
        ] as [(StepID, String, JSONValue)])
    func screens(step: StepID, title: String, actions: JSONValue) throws {
        let view = try Fixture.flow(at: step).view()
        #expect(view["step"] == .string(step.rawValue))
        #expect(view["screen"]?["title"] == .string(title))
        #expect(view["screen"]?["actions"] == actions)
    }

    @Test("Back goes one step back and keeps every value")
    func backKeepsValues() throws {
        var flow = try Fixture.flow(at: .chip)
        try flow.update(#"{"chipNumber": "123456"}"#)
        while flow.step != .summary {
            if let values = Fixture.validValues[flow.step] { try flow.update(values) }
            _ = try flow.continueStep(env: Fixture.env)
        }
        let values = flow.values
        var steps: [StepID] = []
        while flow.step != .chip {
            try flow.back()
            steps.append(flow.step)
            #expect(flow.values == values)
        }
        #expect(steps == [.contact, .description, .photo, .chip])
        #expect(flow.field(.chipNumber)?["display"] == "12345-6")
        #expect(flow.state == .active)
    }

    @Test("Back on the first step cancels the flow and drops its values")
    func backCancels() throws {
        var flow = Flow(id: "f", locale: .en)
        try flow.update(#"{"chipNumber": "123456"}"#)
        try flow.back()
        #expect(flow.state == .cancelled)
        #expect(flow.values == FlowValues())
        #expect(flow.view() == ["id": "f", "state": "cancelled"])
    }

    @Test("Cancel from any step ends the flow and drops its values", arguments: StepID.allCases)
    func cancel(step: StepID) throws {
        var flow = try Fixture.flow(at: step)
        try flow.cancel()
        #expect(flow.state == .cancelled)
        #expect(flow.values == FlowValues())
    }

    enum Action: CaseIterable, Sendable {
        case update, continueStep, back, cancel, applyLocation, dismissAlert, checkSubmittable

        func perform(on flow: inout Flow) throws(FlowError) {
            switch self {
            case .update: try flow.update(JSONObject(), env: Fixture.env)
            case .continueStep: _ = try flow.continueStep(env: Fixture.env)
            case .back: try flow.back()
            case .cancel: try flow.cancel()
            case .applyLocation: try flow.applyLocation(.timeout)
            case .dismissAlert: try flow.dismissAlert()
            case .checkSubmittable: try flow.checkSubmittable()
            }
        }
    }

    @Test("an ended flow refuses every action with wrongStep", arguments: [FlowState.cancelled, .completed], Action.allCases)
    func endedFlow(state: FlowState, action: Action) throws {
        var flow = try Fixture.flow(at: .summary)
        if state == .cancelled { try flow.cancel() } else { flow.complete(reportID: "r-1") }
        let error = #expect(throws: FlowError.self) { try action.perform(on: &flow) }
        guard case .wrongStep = error else {
            Issue.record("expected wrongStep, got \(String(describing: error))")
            return
        }
        #expect(flow.state == state)
    }

    @Test("Continue on the summary is refused: the summary is submitted")
    func continueOnSummary() throws {
        var flow = try Fixture.flow(at: .summary)
        #expect(throws: FlowError.self) { try flow.continueStep(env: Fixture.env) }
        #expect(flow.step == .summary)
    }

    @Test("a refused Continue shows a toast; an update or a successful Continue clears it")
    func toast() throws {
        var flow = try Fixture.flow(at: .contact)
        try flow.update(#"{"contactEmail": null}"#)
        #expect(flow.toast == .null)
        #expect(try flow.continueStep(env: Fixture.env) == false)
        #expect(flow.toast == "Some information must be corrected")

        try flow.update(#"{"contactPhone": "600700800"}"#)
        #expect(flow.toast == .null)
        #expect(flow.error(of: .contactPhone) == nil, "the stored value answers its error")

        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.step == .summary)
        try flow.back()
        #expect(flow.toast == .null)
        #expect(flow.error(of: .contactEmail) == nil, "a new visit of a step starts clean")
    }

    @Test("errors of a refused Continue are replaced by a successful one")
    func errorsCleared() throws {
        var flow = try Fixture.flow(at: .photo)
        _ = try flow.continueStep(env: Fixture.env)
        #expect(try flow.continueStep(env: Fixture.env) == false)
        #expect(flow.error(of: .species) != nil)
        try flow.update(Fixture.validValues[.description]!)
        #expect(try flow.continueStep(env: Fixture.env))
        try flow.back()
        #expect(flow.error(of: .species) == nil)
        #expect(flow.toast == .null)
    }

    @Test("submit is possible on the summary only")
    func submittable() throws {
        for step in StepID.allCases {
            let flow = try Fixture.flow(at: step)
            if step == .summary {
                try flow.checkSubmittable()
            } else {
                #expect(throws: FlowError.self) { try flow.checkSubmittable() }
            }
        }
    }

    @Test("a completed flow shows only its report and holds no values")
    func completed() throws {
        var flow = try Fixture.flow(at: .summary)
        try flow.checkSubmittable()
        flow.complete(reportID: "r-42")
        #expect(flow.state == .completed)
        #expect(flow.reportID == "r-42")
        #expect(flow.values == FlowValues())
        #expect(flow.view() == ["id": "flow-1", "state": "completed", "reportId": "r-42"])
        #expect(throws: FlowError.self) { try flow.checkSubmittable() }
    }
}
