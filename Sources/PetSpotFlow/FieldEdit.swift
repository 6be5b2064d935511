import PetSpotJSON

/// One member of a `flow.update` `values` object that passed the protocol checks (known
/// field, current step, acceptable JSON type) and now awaits its field's rules.
enum FieldEdit {
    /// A number field's input: a JSON number, or a string a person typed.
    enum Number {
        case decimal(DecimalLiteral)
        case unreadable
    }

    /// null, or a blank string, as a person empties a field.
    case clear(FlowField)
    case chipNumber(String)
    /// The photo itself comes checked and decoded with the update (`PreparedUpdate`).
    case photo(filename: String?)
    case disappearanceDate(String)
    case species(String)
    case race(String)
    case gender(String)
    case age(Number)
    case latitude(Number)
    case longitude(Number)
    case additionalDescription(String)
    case contactPhone(String)
    case contactEmail(String)

    var field: FlowField {
        switch self {
        case .clear(let field): field
        case .chipNumber: .chipNumber
        case .photo: .photo
        case .disappearanceDate: .disappearanceDate
        case .species: .species
        case .race: .race
        case .gender: .gender
        case .age: .age
        case .latitude: .latitude
        case .longitude: .longitude
        case .additionalDescription: .additionalDescription
        case .contactPhone: .contactPhone
        case .contactEmail: .contactEmail
        }
    }

    /// An edit with the text it came from, so that a refused value can show what was sent.
    struct Sent {
        let edit: FieldEdit
        /// The string as sent, a number's literal, a photo's filename; nil for a clear.
        let text: String?
    }

    /// Checks every member before anything changes, in this order: unknown names, fields of
    /// another step, unacceptable JSON types. The edits come back in screen order, so that a
    /// species is settled before the race that depends on it.
    static func decode(_ values: JSONObject, on step: StepID) throws(FlowError) -> [Sent] {
        let named = try fields(of: values, known: "\(fieldList(of: step))")
        for (field, _) in named where field.step != step {
            throw .wrongStep(
                message: "Field '\(field.rawValue)' belongs to step '\(field.step.rawValue)'; the flow is on step '\(step.rawValue)'.")
        }
        return try edits(named)
    }

    /// The same checks for fields of any step that holds fields (a stored report's amendment):
    /// unknown names, then unacceptable JSON types.
    static func decode(_ values: JSONObject) throws(FlowError) -> [Sent] {
        try edits(try fields(of: values, known: "The fields are \(FlowField.allCases.map(\.rawValue).joined(separator: ", "))."))
    }

    private static func fields(of values: JSONObject, known: String) throws(FlowError) -> [(field: FlowField, value: JSONValue)] {
        var named: [(field: FlowField, value: JSONValue)] = []
        for (key, value) in values {
            guard let field = FlowField(rawValue: key) else {
                throw .invalidParams(message: "Unknown field '\(key)'. \(known)", parameter: "values.\(key)")
            }
            named.append((field, value))
        }
        return named
    }

    private static func edits(_ named: [(field: FlowField, value: JSONValue)]) throws(FlowError) -> [Sent] {
        var edits: [Sent] = []
        for (field, value) in named {
            edits.append(Sent(edit: try decode(value, for: field), text: sentText(value)))
        }
        // The parser refuses duplicate member names, so each field appears at most once.
        return FlowField.allCases.compactMap { field in edits.first { $0.edit.field == field } }
    }

    private static func sentText(_ value: JSONValue) -> String? {
        switch value {
        case .string, .longString: value.stringValue
        case .number(let number): number.literal
        case .object(let upload): PhotoDecoder.filenameHint(upload["filename"]?.stringValue)
        default: nil
        }
    }

    private static func fieldList(of step: StepID) -> String {
        let fields = step.fields.map(\.rawValue)
        return fields.isEmpty
            ? "Step '\(step.rawValue)' takes no values."
            : "Fields of step '\(step.rawValue)': \(fields.joined(separator: ", "))."
    }

    private static func decode(_ value: JSONValue, for field: FlowField) throws(FlowError) -> FieldEdit {
        // Only a photo's text is read where it is; any other long string is copied.
        let value = field == .photo ? value : value.copyingLongString
        return switch field {
        case .chipNumber: try text(value, field, FieldEdit.chipNumber)
        case .photo: try photo(value)
        case .disappearanceDate: try text(value, field, FieldEdit.disappearanceDate)
        case .species: try text(value, field, FieldEdit.species)
        case .race: try text(value, field, FieldEdit.race)
        case .gender: try text(value, field, FieldEdit.gender)
        case .age: try number(value, field, FieldEdit.age)
        case .latitude: try number(value, field, FieldEdit.latitude)
        case .longitude: try number(value, field, FieldEdit.longitude)
        case .additionalDescription: try text(value, field, FieldEdit.additionalDescription)
        case .contactPhone: try text(value, field, FieldEdit.contactPhone)
        case .contactEmail: try text(value, field, FieldEdit.contactEmail)
        }
    }

    private static func text(_ value: JSONValue, _ field: FlowField, _ edit: (String) -> FieldEdit) throws(FlowError) -> FieldEdit {
        switch value {
        case .null: return .clear(field)
        case .string(let text): return isBlank(text) ? .clear(field) : edit(text)
        default: throw wrongType(field, expected: "a string or null", got: value)
        }
    }

    private static func number(_ value: JSONValue, _ field: FlowField, _ edit: (Number) -> FieldEdit) throws(FlowError) -> FieldEdit {
        switch value {
        case .null: return .clear(field)
        case .number(let number): return edit(.decimal(number.decimal))
        case .string(let text):
            if isBlank(text) { return .clear(field) }
            return edit(DecimalLiteral(fieldText: text).map(Number.decimal) ?? .unreadable)
        default: throw wrongType(field, expected: "a number, a numeric string or null", got: value)
        }
    }

    private static func photo(_ value: JSONValue) throws(FlowError) -> FieldEdit {
        let path = "values.\(FlowField.photo.rawValue)"
        switch value {
        case .null: return .clear(.photo)
        case .object(let upload):
            for key in upload.keys where key != "data" && key != "filename" {
                throw .invalidParams(message: "Unknown member '\(key)' of \(path); it takes data and filename.", parameter: "\(path).\(key)")
            }
            guard upload["data"]?.isString == true else {
                throw .invalidParams(message: "\(path).data must be a base64 string.", parameter: "\(path).data")
            }
            switch upload["filename"]?.copyingLongString {
            case nil, .null: return .photo(filename: nil)
            case .string(let filename): return .photo(filename: filename)
            case let other?:
                throw .invalidParams(message: "\(path).filename must be a string or null, not \(other.typeName).", parameter: "\(path).filename")
            }
        default:
            throw .invalidParams(
                message: "\(path) must be an object {\"data\": BASE64, \"filename\": \"...\"} or null, not \(value.typeName).",
                parameter: path)
        }
    }

    private static func wrongType(_ field: FlowField, expected: String, got value: JSONValue) -> FlowError {
        .invalidParams(message: "values.\(field.rawValue) must be \(expected), not \(value.typeName).", parameter: "values.\(field.rawValue)")
    }

    private static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}
