import ArgumentParser
import PetSpotJSON
import PetSpotProtocol
import Testing

@testable import petspot

/// What `reports amend` and `reports erase` decide before and after they call the daemon.
@Suite("reports amend and erase: flags, refusals, confirmation")
struct ReportChangeCommandTests {
    @Test("every amend flag names a field of the protocol, in the report's order, and reads back")
    func fields() {
        #expect(AmendableField.allCases.map(\.wireName) == [
            "chipNumber", "photo", "disappearanceDate", "species", "race", "gender", "age", "latitude", "longitude",
            "additionalDescription", "contactPhone", "contactEmail",
        ])
        for field in AmendableField.allCases {
            #expect(AmendableField(wireName: field.wireName) == field)
        }
        #expect(AmendableField(wireName: "colour") == nil)
        #expect(AmendableField.additionalDescription.flag == "--description")
    }

    @Test("values that start with a dash are values; --clear repeats; each given field comes in the report's order")
    func parsing() throws {
        let command = try ReportsAmendCommand.parse([
            "r1", "--email", "owner@example.org", "--longitude", "-0.1276", "--latitude", "51.5", "--description", "-limps-",
            "--clear", "age", "--clear", "chip",
        ])
        #expect(command.change.id == "r1")
        #expect(command.given.map(\.field) == [.latitude, .longitude, .additionalDescription, .email])
        #expect(command.given.map(\.value) == ["51.5", "-0.1276", "-limps-", "owner@example.org"])
        #expect(command.cleared == [.age, .chip])
    }

    @Test("refused before any call: nothing named, an empty value, a field both set and cleared", arguments: [
        (["r1"], "Name at least one field to change"),
        (["r1", "--phone", ""], "--phone is empty; to empty the field, say --clear phone."),
        (["r1", "--description", "  "], "--description is empty; to empty the field, say --clear description."),
        (["r1", "--age", "3", "--clear", "age"], "--age and --clear age both name the age"),
    ])
    func usage(_ arguments: [String], _ message: String) {
        #expect(performing: { try ReportsAmendCommand.parse(arguments) }, throws: { error in
            let text = ReportsAmendCommand.message(for: error)
            return text.contains(message) && ReportsAmendCommand.exitCode(for: error) == .validationFailure
        })
    }

    @Test("a refused value names its flag, its field and the flow's message; other errors as every command tells them")
    func refusals() {
        let email = RPCError(.invalidParams, "values.contactEmail: Enter an email address like name@example.com.", parameter: "values.contactEmail")
        #expect(ReportsAmendCommand.refusal(email)
            == "petspot: reports.amend: --email (values.contactEmail): Enter an email address like name@example.com. [invalidParams]")
        let race = RPCError(.invalidParams, "Enter the race.", parameter: "values.race")
        #expect(ReportsAmendCommand.refusal(race) == "petspot: reports.amend: --race (values.race): Enter the race. [invalidParams]")
        let unknown = RPCError(.invalidParams, "values.colour: Unknown field 'colour'.", parameter: "values.colour")
        #expect(ReportsAmendCommand.refusal(unknown) == "petspot: reports.amend: values.colour: Unknown field 'colour'. [invalidParams]")
        let closed = RPCError(.reportClosed, "the report is found: it can no longer change", parameter: "reportId")
        #expect(ReportsAmendCommand.refusal(closed) == "petspot: reports.amend: the report is found: it can no longer change [reportClosed]")
    }

    @Test("erase is confirmed by the start of the id or the whole id, nothing else", arguments: [
        ("3f2a0c1e", true), (" 3f2a0c1e ", true), ("3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10", true),
        ("yes", false), ("y", false), ("", false), ("3f2a0c1", false), ("3F2A0C1E", false), ("3f2a0c1e-5d7b", false),
    ])
    func confirmation(_ typed: String, _ erases: Bool) {
        let id = "3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10"
        #expect(ReportsEraseCommand.confirmationCode(id) == "3f2a0c1e")
        #expect(ReportsEraseCommand.confirms(typed, id: id) == erases, "\(typed.debugDescription)")
    }

    @Test("a short id is its own confirmation code")
    func shortID() {
        #expect(ReportsEraseCommand.confirmationCode("r1") == "r1")
        #expect(ReportsEraseCommand.confirms("r1", id: "r1"))
    }
}
