import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Step 4: contact")
struct ContactStepTests {
    let strings = StringCatalog.english

    @Test(
        "phone numbers keep their digits and a leading +",
        arguments: [
            ("+48 (12) 345-67-89", "+48123456789"),
            ("(+48) 123 456 789", "+48123456789"),
            ("123.456.7890", "1234567890"),
            ("1234567", "1234567"),
            ("123456789012345", "123456789012345"),
            ("+123456789012345", "+123456789012345"),
            ("  0 800\u{00A0}123\u{2013}456 ", "0800123456"),
            ("１２３４５６７", "1234567"),
        ])
    func phoneAccepted(input: String, stored: String) throws {
        #expect(try PhoneNumber(parsing: input).normalized == stored)
        var flow = try Fixture.flow(at: .contact)
        try flow.update(JSONObject(members: [(key: "contactPhone", value: .string(input))]), env: Fixture.env)
        #expect(flow.values.contactPhone == stored)
        #expect(flow.field(.contactPhone)?["display"] == .string(stored))
    }

    @Test(
        "phone numbers with too few or too many digits or other characters are refused",
        arguments: [
            ("123456", PhoneNumber.Problem.digitCount),
            ("1234567890123456", .digitCount),
            ("+48", .digitCount),
            ("()--", .digitCount),
            ("+1-800-FLOWERS", .invalidCharacter),
            ("48+123456789", .invalidCharacter),
            ("++48123456789", .invalidCharacter),
            ("tel: 1234567", .invalidCharacter),
            ("123456789 ext. 2", .invalidCharacter),
            ("1234567/8", .invalidCharacter),
        ])
    func phoneRefused(input: String, problem: PhoneNumber.Problem) throws {
        #expect(throws: problem) { try PhoneNumber(parsing: input) }
        var flow = try Fixture.flow(at: .contact)
        try flow.update(#"{"contactPhone": "600 700 800"}"#)
        try flow.update(JSONObject(members: [(key: "contactPhone", value: .string(input))]), env: Fixture.env)
        #expect(flow.values.contactPhone == nil)
        #expect(flow.error(of: .contactPhone) == strings.issue(.phone(problem)))
    }

    static let longestEmail = String(repeating: "a", count: 254 - "@example.com".count) + "@example.com"

    @Test(
        "email addresses are trimmed and need one @, a local part and a dotted domain",
        arguments: [
            (" owner@example.com ", "owner@example.com"),
            ("a@b.co", "a@b.co"),
            ("first.last+pets@mail.example.org", "first.last+pets@mail.example.org"),
            (longestEmail, longestEmail),
        ])
    func emailAccepted(input: String, stored: String) throws {
        #expect(stored.count <= 254)
        var flow = try Fixture.flow(at: .contact)
        try flow.update(JSONObject(members: [(key: "contactEmail", value: .string(input))]), env: Fixture.env)
        #expect(flow.values.contactEmail == stored)
    }

    @Test(
        "malformed or over-long email addresses are refused",
        arguments: [
            ("owner@example", EmailAddress.Problem.malformed),
            ("@example.com", .malformed),
            ("owner.example.com", .malformed),
            ("a@b@example.com", .malformed),
            ("owner@.com", .malformed),
            ("owner@example.", .malformed),
            ("owner@example..com", .malformed),
            ("own er@example.com", .malformed),
            ("a" + longestEmail, .tooLong),
        ])
    func emailRefused(input: String, problem: EmailAddress.Problem) throws {
        #expect(throws: problem) { try EmailAddress(parsing: input) }
        var flow = try Fixture.flow(at: .contact, filled: true)
        try flow.update(JSONObject(members: [(key: "contactEmail", value: .string(input))]), env: Fixture.env)
        #expect(flow.values.contactEmail == nil)
        #expect(flow.error(of: .contactEmail) == strings.issue(.email(problem)))
    }

    @Test(
        "at least one way to answer is required",
        arguments: [
            (#"{"contactEmail": null}"#, false),
            (#"{"contactEmail": null, "contactPhone": "600700800"}"#, true),
            (#"{"contactEmail": "owner@example.com", "contactPhone": null}"#, true),
            (#"{"contactPhone": "600700800"}"#, true),
        ])
    func atLeastOne(values: String, accepted: Bool) throws {
        var flow = try Fixture.flow(at: .contact)
        try flow.update(values)
        #expect(try flow.continueStep(env: Fixture.env) == accepted)
        #expect(flow.step == (accepted ? .summary : .contact))
        if !accepted {
            #expect(flow.error(of: .contactPhone) == strings.issue(.noContact))
            #expect(flow.error(of: .contactEmail) == strings.issue(.noContact))
        }
    }
}
