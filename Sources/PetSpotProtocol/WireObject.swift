import PetSpotJSON
import PetSpotViews

/// One object of an answer while it is read, with where it stands ("result.flow.screen.fields[2]")
/// so that an error names the member at fault.
struct WireObject {
    let object: JSONObject
    let location: String

    init(_ value: JSONValue, at location: String) throws(FlowViewError) {
        guard case .object(let object) = value else {
            throw FlowViewError(at: location, "must be an object, not \(value.typeName)")
        }
        self.object = object
        self.location = location
    }

    func path(_ key: String) -> String { location + "." + key }

    /// Whether a member that is written only when it has something to say (`options`,
    /// `settings`) is there.
    func has(_ key: String) -> Bool { object[key] != nil }

    /// Any JSON value, null included; only a missing member is an error.
    func value(_ key: String) throws(FlowViewError) -> JSONValue {
        guard let value = object[key] else { throw FlowViewError(at: path(key), "is missing") }
        return value
    }

    func string(_ key: String) throws(FlowViewError) -> String {
        let value = try value(key)
        guard let text = value.stringValue else { throw FlowViewError(at: path(key), "must be a string, not \(value.typeName)") }
        return text
    }

    /// A string or null.
    func optionalString(_ key: String) throws(FlowViewError) -> String? {
        let value = try value(key)
        switch value {
        case .null: return nil
        case .string, .longString: return value.stringValue
        default: throw FlowViewError(at: path(key), "must be a string or null, not \(value.typeName)")
        }
    }

    func bool(_ key: String) throws(FlowViewError) -> Bool {
        let value = try value(key)
        guard case .bool(let flag) = value else { throw FlowViewError(at: path(key), "must be true or false, not \(value.typeName)") }
        return flag
    }

    func int(_ key: String) throws(FlowViewError) -> Int {
        let value = try value(key)
        guard case .number(let number) = value, let int = number.exactInt else {
            throw FlowViewError(at: path(key), "must be a whole number, not \(value.typeName)")
        }
        return int
    }

    func object(_ key: String) throws(FlowViewError) -> WireObject {
        try WireObject(try value(key), at: path(key))
    }

    /// An object or null.
    func optionalObject(_ key: String) throws(FlowViewError) -> WireObject? {
        let value = try value(key)
        return value.isNull ? nil : try WireObject(value, at: path(key))
    }

    func strings(_ key: String) throws(FlowViewError) -> [String] {
        try elements(key).map { element throws(FlowViewError) in
            guard let text = element.value.stringValue else {
                throw FlowViewError(at: element.path, "must be a string, not \(element.value.typeName)")
            }
            return text
        }
    }

    /// A whole number or null.
    func optionalInt(_ key: String) throws(FlowViewError) -> Int? {
        try value(key).isNull ? nil : try int(key)
    }

    func number(_ key: String) throws(FlowViewError) -> JSONNumber {
        let value = try value(key)
        guard case .number(let number) = value else { throw FlowViewError(at: path(key), "must be a number, not \(value.typeName)") }
        return number
    }

    /// A latitude or longitude: a number of degrees, rounded to 5 decimals.
    func coordinate(_ key: String) throws(FlowViewError) -> Coordinate {
        let number = try number(key)
        guard let decimal = DecimalLiteral(parsing: number.literal), let coordinate = Coordinate(decimal), abs(coordinate.scaled) <= 180 * Coordinate.scale else {
            throw FlowViewError(at: path(key), "must be a number of degrees from -180 to 180")
        }
        return coordinate
    }

    /// One of a fixed set of words.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, as type: T.Type) throws(FlowViewError) -> T where T.RawValue == String {
        let text = try string(key)
        guard let choice = T(rawValue: text) else {
            let choices = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw FlowViewError(at: path(key), "must be one of \(choices), not \"\(text)\"")
        }
        return choice
    }

    func objects<T>(_ key: String, _ read: (WireObject) throws(FlowViewError) -> T) throws(FlowViewError) -> [T] {
        try elements(key).map { element throws(FlowViewError) in try read(try WireObject(element.value, at: element.path)) }
    }

    private func elements(_ key: String) throws(FlowViewError) -> [(value: JSONValue, path: String)] {
        let value = try value(key)
        guard case .array(let elements) = value else { throw FlowViewError(at: path(key), "must be an array, not \(value.typeName)") }
        return elements.enumerated().map { (value: $0.element, path: "\(path(key))[\($0.offset)]") }
    }
}
