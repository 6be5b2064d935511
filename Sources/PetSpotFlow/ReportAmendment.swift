import PetSpotJSON
import PetSpotViews

/// `reports.amend`: a stored report's fields changed by the flow's own rules, not a copy of
/// them. Each member of `values` is read as `flow.update` reads it (`FieldEdit`), whatever its
/// step, and normalised or refused as the flow does (`FieldNormalizer`); then what Continue
/// checks (`StepValidator`) is checked again where the change could break it: a required
/// field cleared, a race without its species, one coordinate without the other, no contact
/// left. Unlike `flow.update`, a refused value changes nothing at all: the amendment is one
/// error naming the field (`values.FIELD`) with the flow's own message for it.
public enum ReportAmendment {
    /// `prepared` (the amendment's `values`, its photo checked) applied to a report's stored
    /// values; `strings` word the refusals.
    public static func apply(_ prepared: PreparedUpdate, to stored: FlowValues, env: FlowEnvironment,
                             strings: StringCatalog = .english) throws(FlowError) -> FlowValues
    {
        let edits = try FieldEdit.decode(prepared.values)
        guard !edits.isEmpty else {
            throw .invalidParams(message: "values holds no field to change.", parameter: "values")
        }
        let photo = prepared.photo
        var values = stored
        for sent in edits {
            if let issue = FieldNormalizer.apply(sent.edit, to: &values, env: env, decodedPhoto: photo) {
                throw refusal(sent.edit.field, issue, strings)
            }
        }
        var touched = Set(edits.map(\.edit.field))
        if touched.contains(.species) { touched.insert(.race) }
        if !touched.isDisjoint(with: [.latitude, .longitude]) { touched.formUnion([.latitude, .longitude]) }
        if !touched.isDisjoint(with: [.contactPhone, .contactEmail]) { touched.formUnion([.contactPhone, .contactEmail]) }
        for step in StepID.allCases {
            let issues = StepValidator.issues(on: step, in: values, env: env)
            // A rule of what the amendment did not touch (a species since dropped from the
            // catalog, say) does not refuse a change to something else.
            if let field = FlowField.allCases.first(where: { touched.contains($0) && issues[$0] != nil }), let issue = issues[field] {
                throw refusal(field, issue, strings)
            }
        }
        return values
    }

    /// A value refused, named as `values.FIELD` with the flow's own words for the issue.
    static func refusal(_ field: FlowField, _ issue: FieldIssue, _ strings: StringCatalog) -> FlowError {
        .invalidParams(message: "values.\(field.rawValue): \(strings.issue(issue))", parameter: "values.\(field.rawValue)")
    }
}

extension FlowValues {
    /// The values of a stored report (`jsonObject` as it was written at submit or at the last
    /// change). Its photo is described, not loaded: `content` holds no bytes (`StoredPhotoBytes`).
    /// Nil when a member does not read back as the flow writes it.
    public init?(stored: JSONObject) {
        var values = FlowValues()
        for (key, value) in stored {
            guard let field = FlowField(rawValue: key) else { return nil }
            if value == .null { continue }
            switch field {
            case .chipNumber: guard let text = value.stringValue else { return nil }; values.chipNumber = text
            case .photo:
                guard let mediaType = value["mediaType"]?.stringValue, let sha256 = value["sha256"]?.stringValue,
                      case .number(let bytes)? = value["bytes"], let count = Int(bytes.literal) else { return nil }
                values.photo = Photo(mediaType: mediaType, content: StoredPhotoBytes(count: count), sha256: sha256, filename: nil)
            case .disappearanceDate: guard let date = value.stringValue.flatMap(CalendarDate.init(iso:)) else { return nil }; values.disappearanceDate = date
            case .species: guard let text = value.stringValue else { return nil }; values.species = text
            case .race: guard let text = value.stringValue else { return nil }; values.race = text
            case .gender: guard let gender = value.stringValue.flatMap(Gender.init(rawValue:)) else { return nil }; values.gender = gender
            case .age: guard case .number(let n) = value, let years = Int(n.literal) else { return nil }; values.age = years
            case .latitude: guard let c = Self.coordinate(value) else { return nil }; values.latitude = c
            case .longitude: guard let c = Self.coordinate(value) else { return nil }; values.longitude = c
            case .additionalDescription: guard let text = value.stringValue else { return nil }; values.additionalDescription = text
            case .contactPhone: guard let text = value.stringValue else { return nil }; values.contactPhone = text
            case .contactEmail: guard let text = value.stringValue else { return nil }; values.contactEmail = text
            }
        }
        self = values
    }

    private static func coordinate(_ value: JSONValue) -> Coordinate? {
        guard case .number(let number) = value, let decimal = DecimalLiteral(parsing: number.literal) else { return nil }
        return Coordinate(decimal)
    }
}

/// The bytes of a stored report's photo, kept by the store: a value being amended knows their
/// size and hash, and never reads them.
public struct StoredPhotoBytes: PhotoContent {
    public let count: Int

    public init(count: Int) {
        self.count = count
    }

    public func bytes() throws -> [UInt8] {
        throw StoredPhotoBytesNotHere()
    }
}

struct StoredPhotoBytesNotHere: Error, CustomStringConvertible {
    var description: String { "a stored report's photo is read from the report store, not from its values" }
}
