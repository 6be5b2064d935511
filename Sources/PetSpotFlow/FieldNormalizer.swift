import PetSpotViews

/// The rules of each field: an edit either becomes the stored, normalised value, or is refused
/// with the issue that makes it wrong whatever else the flow holds.
enum FieldNormalizer {
    static let maxRaceLength = 100
    static let maxDescriptionLength = 500

    /// Stores `edit` into `values`; when it returns an issue, `values` is exactly as before.
    static func apply(_ edit: FieldEdit, to values: inout FlowValues, env: FlowEnvironment,
                      decodedPhoto: Result<Photo, PhotoDecoder.Problem>?) -> FieldIssue? {
        switch edit {
        case .clear(let field):
            values.clear(field)

        case .chipNumber(let text):
            let chip = ChipNumber(normalizing: text)
            values.chipNumber = chip.isEmpty ? nil : chip.digits

        case .photo(let filename):
            if let filename, hasControl(filename, allowingLineBreaks: false) { return .controlCharacters(allowsLineBreaks: false) }
            // `PreparedUpdate` checks every photo this edit is made for; nil is not one of them.
            switch decodedPhoto ?? .failure(.notBase64) {
            case .success(let photo): values.photo = photo
            case .failure(let problem): return .photo(problem)
            }

        case .disappearanceDate(let text):
            guard let date = CalendarDate(iso: trimmed(text)) else { return .notADate }
            guard date <= env.today else { return .futureDate }
            values.disappearanceDate = date

        case .species(let text):
            let id = trimmed(text).lowercased()
            guard env.species.contains(id) else { return .unknownSpecies }
            // A race describes one species; keeping it across a change would mislabel the animal.
            if values.species != id { values.race = nil }
            values.species = id

        case .race(let text):
            guard values.species != nil else { return .speciesFirst }
            let race = trimmed(text)
            guard !hasControl(race, allowingLineBreaks: false) else { return .controlCharacters(allowsLineBreaks: false) }
            guard race.count <= maxRaceLength else { return .tooLong(maximum: maxRaceLength) }
            values.race = race

        case .gender(let text):
            guard let gender = Gender(rawValue: trimmed(text).lowercased()) else { return .unknownGender }
            values.gender = gender

        case .age(let number):
            guard case .decimal(let value) = number, let years = Age.years(from: value) else { return .invalidAge }
            values.age = years

        case .latitude(let number):
            return store(number, axis: .latitude, into: &values.latitude)

        case .longitude(let number):
            return store(number, axis: .longitude, into: &values.longitude)

        case .additionalDescription(let text):
            // Line breaks as a Windows paste sends them are stored as the rest are: LF alone.
            let description = trimmed(text.replacing("\r\n", with: "\n"))
            guard !hasControl(description, allowingLineBreaks: true) else { return .controlCharacters(allowsLineBreaks: true) }
            // Cut like a paste into a limited text area: whole characters, never half an emoji.
            values.additionalDescription = String(description.prefix(maxDescriptionLength))

        case .contactPhone(let text):
            do {
                values.contactPhone = try PhoneNumber(parsing: text).normalized
            } catch {
                return .phone(error)
            }

        case .contactEmail(let text):
            do {
                values.contactEmail = try EmailAddress(parsing: text).normalized
            } catch {
                return .email(error)
            }
        }
        return nil
    }

    private static func store(_ number: FieldEdit.Number, axis: CoordinateParser.Axis, into slot: inout Coordinate?) -> FieldIssue? {
        guard case .decimal(let value) = number else { return .notANumber }
        do {
            slot = try CoordinateParser.parse(value, axis: axis)
            return nil
        } catch {
            switch error {
            case .notANumber: return .notANumber
            case .outOfRange: return .outOfRange(axis)
            }
        }
    }

    /// C0 and C1 controls and DEL (Unicode's `Cc`): a terminal acts on them instead of showing
    /// them. LF and TAB are text in a description.
    static func hasControl(_ text: String, allowingLineBreaks: Bool) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && !(allowingLineBreaks && (scalar == "\n" || scalar == "\t"))
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.trimming(.whitespacesAndNewlines)
    }
}
