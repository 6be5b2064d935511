import Foundation
import PetSpotJSON
import Testing
import PetSpotViews

@testable import PetSpotFlow

@Suite("Step 3: description")
struct DescriptionStepTests {
    let strings = StringCatalog.english

    // MARK: Date

    @Test("the date defaults to today the first time the step is shown, and only then")
    func dateDefault() throws {
        var flow = try Fixture.flow(at: .photo)
        #expect(flow.values.disappearanceDate == nil)
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.values.disappearanceDate == Fixture.today)
        #expect(flow.field(.disappearanceDate)?["value"] == "2024-06-15")

        try flow.update(#"{"disappearanceDate": null}"#)
        try flow.back()
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.values.disappearanceDate == nil, "a date cleared on purpose stays cleared")
    }

    @Test("the default follows the environment's today")
    func defaultIsEnvironmentToday() throws {
        let newYear = try #require(CalendarDate(iso: "2025-01-01"))
        let env = FlowEnvironment(today: newYear, species: Fixture.species)
        let flow = try Fixture.flow(at: .description, env: env)
        #expect(flow.values.disappearanceDate == newYear)
    }

    @Test(
        "a date is stored when it is real and not in the future",
        arguments: [
            ("2024-06-15", "2024-06-15"),
            ("2024-02-29", "2024-02-29"),
            ("1999-12-31", "1999-12-31"),
            (" 2024-06-01 ", "2024-06-01"),
        ])
    func acceptedDate(input: String, stored: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"disappearanceDate": "\#(input)"}"#)
        #expect(flow.values.disappearanceDate?.iso == stored)
        #expect(flow.error(of: .disappearanceDate) == nil)
    }

    @Test(
        "a non-date or a future date is refused at once and replaces the previous date",
        arguments: [
            ("2023-02-29", FieldIssue.notADate),
            ("2024-04-31", .notADate),
            ("2024-6-1", .notADate),
            ("15.06.2024", .notADate),
            ("yesterday", .notADate),
            ("2024-06-16", .futureDate),
            ("2030-01-01", .futureDate),
        ])
    func refusedDate(input: String, issue: FieldIssue) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"disappearanceDate": "2024-06-01"}"#)
        try flow.update(#"{"disappearanceDate": "\#(input)"}"#)
        #expect(flow.values.disappearanceDate == nil)
        #expect(flow.error(of: .disappearanceDate) == strings.issue(issue))
    }

    @Test(
        "tomorrow is refused relative to the environment's today, across month and year ends",
        arguments: [
            ("2024-02-28", "2024-02-29"),
            ("2023-02-28", "2023-03-01"),
            ("2024-12-31", "2025-01-01"),
        ])
    func tomorrow(today: String, tomorrow: String) throws {
        let env = FlowEnvironment(today: try #require(CalendarDate(iso: today)), species: Fixture.species)
        var flow = try Fixture.flow(at: .description, env: env)
        try flow.update(#"{"disappearanceDate": "\#(tomorrow)"}"#, env: env)
        #expect(flow.values.disappearanceDate == nil)
        try flow.update(#"{"disappearanceDate": "\#(today)"}"#, env: env)
        #expect(flow.error(of: .disappearanceDate) == nil)
    }

    @Test("a date that became future (today moved back) is caught at Continue")
    func futureAtContinue() throws {
        var flow = try Fixture.flow(at: .description)
        let yesterday = FlowEnvironment(today: try #require(CalendarDate(iso: "2024-06-14")), species: Fixture.species)
        try flow.update(Fixture.validValues[.description]!)
        #expect(try flow.continueStep(env: yesterday) == false)
        #expect(flow.error(of: .disappearanceDate) == strings.issue(.futureDate))
    }

    // MARK: Species and race

    @Test("species must be an id of the catalog; case and spaces are forgiven", arguments: ["dog", " Dog ", "GUINEA-PIG"])
    func knownSpecies(input: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"species": "\#(input)"}"#)
        #expect(flow.values.species == input.trimmingCharacters(in: .whitespaces).lowercased())
    }

    @Test("an unknown species is refused and empties the species and its race", arguments: ["unicorn", "dogs", "Pies"])
    func unknownSpecies(input: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"species": "cat", "race": "Maine Coon"}"#)
        try flow.update(#"{"species": "\#(input)"}"#)
        #expect(flow.values.species == nil)
        #expect(flow.values.race == nil)
        #expect(flow.error(of: .species) == strings.issue(.unknownSpecies))
    }

    @Test("the species field lists the catalog as options, by localised name")
    func speciesOptions() throws {
        let flow = try Fixture.flow(at: .description, filled: true, locale: .pl)
        let field = try #require(flow.field(.species))
        #expect(field["placeholder"] == "Wybierz opcję")
        #expect(
            field["options"] == [
                ["id": "dog", "name": "Pies"], ["id": "cat", "name": "Kot"], ["id": "guinea-pig", "name": "Świnka morska"],
            ])
        #expect(field["display"] == "Pies")
    }

    @Test("race is disabled and refused until a species is chosen")
    func raceBeforeSpecies() throws {
        var flow = try Fixture.flow(at: .photo)
        _ = try flow.continueStep(env: Fixture.env)
        #expect(flow.field(.race)?["enabled"] == false)
        #expect(flow.field(.race)?["required"] == false)
        try flow.update(#"{"race": "Labrador"}"#)
        #expect(flow.values.race == nil)
        #expect(flow.error(of: .race) == strings.issue(.speciesFirst))

        try flow.update(#"{"species": "dog"}"#)
        #expect(flow.field(.race)?["enabled"] == true)
        #expect(flow.field(.race)?["required"] == true)
        #expect(flow.error(of: .race) == nil, "choosing a species answers 'species first'")
    }

    @Test("species and race in one update work in either member order")
    func speciesAndRaceTogether() throws {
        var flow = try Fixture.flow(at: .photo)
        _ = try flow.continueStep(env: Fixture.env)
        try flow.update(#"{"race": "Labrador", "species": "dog"}"#)
        #expect(flow.values.species == "dog")
        #expect(flow.values.race == "Labrador")
    }

    @Test(
        "race is cleared whenever the species changes or is cleared, and kept when it is re-sent",
        arguments: [(#""cat""#, nil), ("null", nil), (#""""#, nil), (#""dog""#, "Labrador"), (#""DOG""#, "Labrador")])
    func raceFollowsSpecies(species: String, race: String?) throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        #expect(flow.values.race == "Labrador")
        try flow.update(#"{"species": \#(species)}"#)
        #expect(flow.values.race == race)
    }

    @Test(
        "race is trimmed and holds 1 to 100 characters",
        arguments: [
            ("  Border Collie  ", "Border Collie"),
            (String(repeating: "x", count: 100), String(repeating: "x", count: 100)),
            (String(repeating: "é", count: 100), String(repeating: "é", count: 100)),
        ])
    func raceAccepted(input: String, stored: String) throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(JSONObject(members: [(key: "race", value: .string(input))]), env: Fixture.env)
        #expect(flow.values.race == stored)
    }

    @Test("a race over 100 characters is refused; a blank race clears it")
    func raceLimits() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(JSONObject(members: [(key: "race", value: .string(String(repeating: "x", count: 101)))]), env: Fixture.env)
        #expect(flow.values.race == nil)
        #expect(flow.error(of: .race) == strings.issue(.tooLong(maximum: 100)))
        try flow.update(#"{"race": "   "}"#)
        #expect(flow.values.race == nil)
        #expect(flow.error(of: .race) == nil)
        #expect(try flow.continueStep(env: Fixture.env) == false)
        #expect(flow.error(of: .race) == strings.issue(.required(.race)))
    }

    // MARK: Gender

    @Test("gender is female or male", arguments: [("female", Gender.female), ("male", .male), (" Female ", .female)])
    func gender(input: String, gender: Gender) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"gender": "\#(input)"}"#)
        #expect(flow.values.gender == gender)
    }

    @Test("any other gender text is a field error")
    func unknownGender() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(#"{"gender": "unknown"}"#)
        #expect(flow.values.gender == nil)
        #expect(flow.error(of: .gender) == strings.issue(.unknownGender))
    }

    @Test("gender options and display are localised", arguments: [(FlowLocale.en, "Female", "Male"), (.pl, "Samica", "Samiec")])
    func genderOptions(locale: FlowLocale, female: String, male: String) throws {
        let flow = try Fixture.flow(at: .description, filled: true, locale: locale)
        let field = try #require(flow.field(.gender))
        #expect(field["options"] == [["id": "female", "name": .string(female)], ["id": "male", "name": .string(male)]])
        #expect(field["value"] == "female")
        #expect(field["display"] == .string(female))
    }

    // MARK: Age

    @Test(
        "age is whole years 0-40, as a number or a numeric string",
        arguments: [
            ("0", 0), ("40", 40), ("3", 3), ("3.0", 3), ("3e1", 30), ("-0", 0),
            (#""3""#, 3), (#"" 7 ""#, 7), (#""12.0""#, 12), (#""+5""#, 5),
        ])
    func acceptedAge(json: String, years: Int) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"age": \#(json)}"#)
        #expect(flow.values.age == years)
        #expect(flow.error(of: .age) == nil)
    }

    @Test(
        "negative, fractional, too old or non-numeric ages are refused",
        arguments: ["-1", "41", "2.5", "0.1", "1e3", #""2.5""#, #""-1""#, #""three""#, #""3 years""#])
    func refusedAge(json: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"age": 5}"#)
        try flow.update(#"{"age": \#(json)}"#)
        #expect(flow.values.age == nil)
        #expect(flow.error(of: .age) == strings.issue(.invalidAge))
    }

    @Test("age is optional and shown in words", arguments: [(FlowLocale.en, 1, "1 year"), (.en, 3, "3 years"), (.pl, 3, "3 lata")])
    func ageDisplay(locale: FlowLocale, years: Int, display: String) throws {
        var flow = try Fixture.flow(at: .description, locale: locale)
        try flow.update(#"{"age": \#(years)}"#)
        #expect(flow.field(.age)?["display"] == .string(display))
        #expect(flow.field(.age)?["required"] == false)
    }

    // MARK: Additional description

    @Test(
        "the description is cut to 500 characters, counting what a person sees as one",
        arguments: [
            (String(repeating: "a", count: 500), 500),
            (String(repeating: "a", count: 501), 500),
            (String(repeating: "👍🏽", count: 501), 500),
            (String(repeating: "e\u{301}", count: 501), 500),
            (String(repeating: "a", count: 499) + "👍🏽", 500),
            ("e\u{301}", 1),
        ])
    func descriptionLength(input: String, characters: Int) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(JSONObject(members: [(key: "additionalDescription", value: .string(input))]), env: Fixture.env)
        let stored = try #require(flow.values.additionalDescription)
        #expect(stored.count == characters)
        #expect(input.hasPrefix(stored))
        #expect(flow.field(.additionalDescription)?["counter"] == .string("\(characters)/500"))
    }

    @Test(
        "control characters in race or description are a field error and store nothing; LF and TAB are text in a description, CRLF is stored as LF",
        arguments: [
            ("race", "Lab\u{1B}[2J", FieldIssue?.some(.controlCharacters(allowsLineBreaks: false)), String?.none),
            ("race", "Lab\u{9B}31m", .controlCharacters(allowsLineBreaks: false), nil),
            ("race", "Lab\u{7F}", .controlCharacters(allowsLineBreaks: false), nil),
            ("race", "Lab\trador", .controlCharacters(allowsLineBreaks: false), nil),
            ("race", "Lab\nrador", .controlCharacters(allowsLineBreaks: false), nil),
            ("race", "Labrador\n", nil, "Labrador"),
            ("additionalDescription", "ring\u{07}", .controlCharacters(allowsLineBreaks: true), nil),
            ("additionalDescription", "black\u{08}\u{08}white", .controlCharacters(allowsLineBreaks: true), nil),
            ("additionalDescription", "over\rwrite", .controlCharacters(allowsLineBreaks: true), nil),
            ("additionalDescription", "a\u{85}b", .controlCharacters(allowsLineBreaks: true), nil),
            ("additionalDescription", "white paws\r\nred collar", nil, "white paws\nred collar"),
            ("additionalDescription", "white paws\n\tred collar", nil, "white paws\n\tred collar"),
            ("additionalDescription", "łapy \u{2028} białe", nil, "łapy \u{2028} białe"),
        ] as [(String, String, FieldIssue?, String?)])
    func controlCharacters(member: String, input: String, issue: FieldIssue?, stored: String?) throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(JSONObject(members: [(key: member, value: .null)]), env: Fixture.env)
        try flow.update(JSONObject(members: [(key: member, value: .string(input))]), env: Fixture.env)
        let field = try #require(FlowField(rawValue: member))
        #expect(flow.error(of: field) == issue.map(strings.issue))
        #expect((member == "race" ? flow.values.race : flow.values.additionalDescription) == stored)
    }

    @Test("the counter starts at 0/500 and a blank description is no description")
    func emptyDescription() throws {
        var flow = try Fixture.flow(at: .description)
        #expect(flow.field(.additionalDescription)?["counter"] == "0/500")
        try flow.update(#"{"additionalDescription": " \n "}"#)
        #expect(flow.values.additionalDescription == nil)
    }

    // MARK: Continue

    @Test("Continue names every missing required field and shows the toast")
    func requiredFields() throws {
        var flow = try Fixture.flow(at: .photo)
        _ = try flow.continueStep(env: Fixture.env)
        try flow.update(#"{"disappearanceDate": null}"#)
        #expect(try flow.continueStep(env: Fixture.env) == false)
        #expect(flow.step == .description)
        #expect(flow.toast == "Some information must be corrected")
        #expect(flow.error(of: .disappearanceDate) == strings.issue(.required(.disappearanceDate)))
        #expect(flow.error(of: .species) == strings.issue(.required(.species)))
        #expect(flow.error(of: .gender) == strings.issue(.required(.gender)))
        #expect(flow.error(of: .race) == nil, "race is not required before a species")
        #expect(flow.error(of: .age) == nil)
    }

    @Test("the screen lists the step's fields in order with their requirements")
    func fieldsInOrder() throws {
        let flow = try Fixture.flow(at: .description, filled: true)
        let fields = try #require(flow.view()["screen"]?["fields"]?.arrayValue)
        #expect(fields.map { $0["name"] } == [
            "disappearanceDate", "species", "race", "gender", "age", "latitude", "longitude", "additionalDescription",
        ])
        #expect(fields.map { $0["required"] } == [true, true, true, true, false, false, false, false])
        #expect(fields.map { $0["label"] } == [
            "Date of disappearance", "Animal species", "Animal race", "Gender", "Animal age (optional)",
            "Latitude (optional)", "Longitude (optional)", "Animal additional description (optional)",
        ])
        #expect(flow.view()["screen"]?["actions"] == ["continue", "back", "requestLocation"])
        #expect(flow.field(.longitude)?["helper"] == "No other location details are collected on this step.")
    }
}
