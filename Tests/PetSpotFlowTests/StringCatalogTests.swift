import Foundation
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@testable import PetSpotFlow

@Suite("String catalogs")
struct StringCatalogTests {
    /// Every string a catalog can produce, with a name for the failure message.
    static func allStrings(of strings: StringCatalog) -> [(String, String)] {
        var all: [(String, String)] = []
        for step in StepID.allCases {
            let copy = strings.step(step)
            all += [("\(step).title", copy.title), ("\(step).heading", copy.heading), ("\(step).text", copy.text)]
        }
        for field in FlowField.allCases {
            all += [("label.\(field)", strings.label(field)), ("placeholder.\(field)", strings.placeholder(field))]
        }
        for gender in Gender.allCases { all.append(("gender.\(gender)", strings.gender(gender))) }
        let hints: [ChipNumber.Hint] = [
            .countryCode("616"), .manufacturerCode("985"), .testTransponder, .unassignedCode, .nationalIDTooLarge, .shorterThanISO,
        ]
        for hint in hints { all.append(("chipHint.\(hint)", strings.chipHint(hint))) }
        let issues: [FieldIssue] =
            FlowField.allCases.map(FieldIssue.required) + [
                .notADate, .futureDate, .unknownSpecies, .speciesFirst, .tooLong(maximum: 100), .unknownGender, .invalidAge,
                .notANumber, .noContact,
                .photo(.notBase64), .photo(.notAnImage), .photo(.tooLarge(limit: 1024)),
                .phone(.invalidCharacter), .phone(.digitCount), .email(.malformed), .email(.tooLong),
            ] + CoordinateParser.Axis.allCases.flatMap { [FieldIssue.outOfRange($0), .missingCoordinate($0)] }
        for issue in issues { all.append(("issue.\(issue)", strings.issue(issue))) }
        let settings = SettingsLocation(file: "f", key: "k")
        let outcomes: [LocationOutcome] = [
            .fix(LocationFix(latitude: Coordinate(scaled: 0), longitude: Coordinate(scaled: 0), source: "gpsd", time: "t", accuracy: nil)),
            .permissionDenied(settings), .servicesDisabled(settings), .timeout, .unavailable(reason: "r"),
        ]
        for outcome in outcomes { all.append(("location.\(outcome.status)", strings.locationMessage(outcome))) }
        all += [
            ("optionalLabel", strings.optionalLabel("X")), ("notProvided", strings.notProvided), ("toast", strings.toast),
            ("years", strings.years(2)), ("photoSummary", strings.photoSummary("image/png", "1 KiB")),
            ("photoFormats", strings.photoFormats("10 MiB")), ("photoDetails", strings.photoDetails("ab", "x.jpg")),
            ("noOtherLocationDetails", strings.noOtherLocationDetails), ("locationFound", strings.locationFound("gpsd")),
            ("locationTimedOut", strings.locationTimedOut), ("locationUnavailable", strings.locationUnavailable),
            ("permissionDenied.title", strings.permissionDeniedAlert.title),
            ("permissionDenied.message", strings.permissionDeniedAlert.message),
            ("servicesDisabled.title", strings.servicesDisabledAlert.title),
            ("servicesDisabled.message", strings.servicesDisabledAlert.message),
            ("cancel", strings.cancel), ("goToSettings", strings.goToSettings),
        ]
        for month in 1...12 {
            all.append(("date.\(month)", strings.date(CalendarDate(year: 2024, month: month, day: 1)!)))
        }
        return all
    }

    @Test("every string exists, is one line and has no stray spaces", arguments: FlowLocale.allCases)
    func complete(locale: FlowLocale) {
        for (name, text) in Self.allStrings(of: StringCatalog(locale)) {
            #expect(!text.isEmpty, "\(locale) \(name) is empty")
            #expect(!text.contains("\n"), "\(locale) \(name) has a newline")
            #expect(text == text.trimmingCharacters(in: .whitespaces), "\(locale) \(name) has stray spaces")
        }
    }

    @Test("Polish is a translation, not a copy")
    func polishDiffers() {
        for step in StepID.allCases {
            #expect(StringCatalog.polish.step(step).title != StringCatalog.english.step(step).title)
            #expect(StringCatalog.polish.step(step).text != StringCatalog.english.step(step).text)
        }
        let english = Dictionary(Self.allStrings(of: .english), uniquingKeysWith: { first, _ in first })
        let polish = Self.allStrings(of: .polish)
        let translated = polish.filter { english[$0.0] != $0.1 }
        // Only language-neutral strings (formats like "00000-00000-00000", "+48 123 456 789") may match.
        #expect(translated.count > polish.count * 4 / 5)
    }

    @Test("step copy of FLOW.md", arguments: [
        (StepID.chip, "Microchip number", "Numer mikrochipa"),
        (.photo, "Animal photo", "Zdjęcie zwierzęcia"),
        (.description, "Animal description", "Opis zwierzęcia"),
        (.contact, "Contact details", "Dane kontaktowe"),
        (.summary, "Summary", "Podsumowanie"),
    ])
    func titles(step: StepID, english: String, polish: String) {
        #expect(StringCatalog(.en).step(step).title == english)
        #expect(StringCatalog(.pl).step(step).title == polish)
    }

    @Test(
        "Polish counts years with the right plural form",
        arguments: [(0, "0 lat"), (1, "1 rok"), (2, "2 lata"), (4, "4 lata"), (5, "5 lat"), (12, "12 lat"), (14, "14 lat"), (22, "22 lata"), (25, "25 lat")])
    func polishYears(count: Int, text: String) {
        #expect(StringCatalog.polish.years(count) == text)
    }

    @Test(
        "dates as a person reads them",
        arguments: [(FlowLocale.en, "2024-05-01", "1 May 2024"), (.pl, "2024-05-01", "1 maja 2024"), (.pl, "2023-12-24", "24 grudnia 2023")])
    func dates(locale: FlowLocale, iso: String, text: String) throws {
        #expect(StringCatalog(locale).date(try #require(CalendarDate(iso: iso))) == text)
    }

    @Test(
        "byte sizes in binary units with one decimal",
        arguments: [
            (0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"), (12_595, "12.3 KiB"),
            (1_048_575, "1 MiB"), (10 * 1_048_576, "10 MiB"), (10 * 1_048_576 + 1, "10 MiB"), (1_572_864, "1.5 MiB"),
        ])
    func byteSizes(bytes: Int, text: String) {
        #expect(StringCatalog.english.byteSize(bytes) == text)
        #expect(StringCatalog.polish.byteSize(bytes) == text.replacingOccurrences(of: ".", with: ","))
    }
}
