import PetSpotJSON
import Testing

@testable import PetSpotFlow

/// The protocol-level checks of `flow.update`: they refuse the whole request before any change.
@Suite("flow.update checks")
struct UpdateProtocolTests {
    @Test(
        "an unknown field is invalidParams naming it and listing the step's fields",
        arguments: [
            (StepID.chip, #"{"chipnumber": "1"}"#, "values.chipnumber", "chipNumber"),
            (.description, #"{"species": "dog", "colour": "black"}"#, "values.colour", "additionalDescription"),
            (.contact, #"{"email": "a@b.co"}"#, "values.email", "contactEmail"),
            (.summary, #"{"note": "x"}"#, "values.note", "takes no values"),
        ])
    func unknownField(step: StepID, values: String, parameter: String, listed: String) throws {
        var flow = try Fixture.flow(at: step)
        let before = flow.values
        let error = try flow.updateError(values)
        guard case .invalidParams(let message, let reported) = error else {
            Issue.record("expected invalidParams, got \(String(describing: error))")
            return
        }
        #expect(reported == parameter)
        #expect(message.contains(listed))
        #expect(flow.values == before)
    }

    @Test(
        "a field of another step is wrongStep naming the field, its step and the current step",
        arguments: [
            (StepID.chip, #"{"species": "dog"}"#, ["species", "description", "chip"]),
            (.photo, #"{"chipNumber": "1"}"#, ["chipNumber", "chip", "photo"]),
            (.description, #"{"age": 3, "contactPhone": "600700800"}"#, ["contactPhone", "contact", "description"]),
            (.summary, #"{"gender": "male"}"#, ["gender", "description", "summary"]),
        ])
    func otherStep(step: StepID, values: String, named: [String]) throws {
        var flow = try Fixture.flow(at: step)
        let before = flow.values
        let error = try flow.updateError(values)
        guard case .wrongStep(let message) = error else {
            Issue.record("expected wrongStep, got \(String(describing: error))")
            return
        }
        for word in named { #expect(message.contains("'\(word)'")) }
        #expect(flow.values == before, "nothing of a refused update is stored")
    }

    @Test(
        "a JSON type a field can never take is invalidParams naming the field",
        arguments: [
            (StepID.chip, #"{"chipNumber": 123456}"#, "values.chipNumber"),
            (.photo, #"{"photo": "x"}"#, "values.photo"),
            (.photo, #"{"photo": ["x"]}"#, "values.photo"),
            (.photo, #"{"photo": {}}"#, "values.photo.data"),
            (.photo, #"{"photo": {"data": 5}}"#, "values.photo.data"),
            (.photo, #"{"photo": {"data": "", "filename": 5}}"#, "values.photo.filename"),
            (.photo, #"{"photo": {"data": "", "name": "a.jpg"}}"#, "values.photo.name"),
            (.description, #"{"gender": 5}"#, "values.gender"),
            (.description, #"{"species": {"id": "dog"}}"#, "values.species"),
            (.description, #"{"age": true}"#, "values.age"),
            (.description, #"{"latitude": [52.1]}"#, "values.latitude"),
            (.description, #"{"disappearanceDate": 20240601}"#, "values.disappearanceDate"),
            (.description, #"{"race": false}"#, "values.race"),
            (.description, #"{"additionalDescription": 1}"#, "values.additionalDescription"),
            (.contact, #"{"contactPhone": 600700800}"#, "values.contactPhone"),
            (.contact, #"{"contactEmail": ["a@b.co"]}"#, "values.contactEmail"),
        ])
    func wrongType(step: StepID, values: String, parameter: String) throws {
        var flow = try Fixture.flow(at: step)
        let error = try flow.updateError(values)
        guard case .invalidParams(_, let reported) = error else {
            Issue.record("expected invalidParams, got \(String(describing: error))")
            return
        }
        #expect(reported == parameter)
    }

    @Test(
        "the checks run in order over all members: unknown name, then step, then type",
        arguments: [
            (#"{"contactPhone": "1", "colour": 5}"#, "invalidParams"),
            (#"{"gender": 5, "contactPhone": "1"}"#, "wrongStep"),
            (#"{"gender": 5, "species": "dog"}"#, "invalidParams"),
        ])
    func checkOrder(values: String, kind: String) throws {
        var flow = try Fixture.flow(at: .description)
        switch try flow.updateError(values) {
        case .invalidParams?: #expect(kind == "invalidParams")
        case .wrongStep?: #expect(kind == "wrongStep")
        case nil: Issue.record("accepted")
        }
    }

    @Test("a refused request changes nothing, not even the members before the bad one")
    func atomic() throws {
        var flow = try Fixture.flow(at: .description)
        let before = flow.values
        _ = try flow.updateError(#"{"species": "cat", "age": 3, "gender": 5}"#)
        #expect(flow.values == before)
    }

    @Test("valid values of an update are stored even when another value breaks its rule")
    func partialValues() throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"species": "cat", "age": 41, "gender": "male", "latitude": 200}"#)
        #expect(flow.values.species == "cat")
        #expect(flow.values.gender == .male)
        #expect(flow.values.age == nil)
        #expect(flow.values.latitude == nil)
        #expect(flow.error(of: .age) != nil)
        #expect(flow.error(of: .latitude) != nil)
        #expect(flow.error(of: .species) == nil)
    }

    @Test("a later valid value clears the field's error")
    func errorCleared() throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"age": 41}"#)
        #expect(flow.error(of: .age) != nil)
        try flow.update(#"{"age": 4}"#)
        #expect(flow.error(of: .age) == nil)
        #expect(flow.values.age == 4)
    }

    @Test("an empty values object is accepted and changes nothing")
    func emptyUpdate() throws {
        var flow = try Fixture.flow(at: .description)
        let before = flow.values
        try flow.update("{}")
        #expect(flow.values == before)
    }
}
