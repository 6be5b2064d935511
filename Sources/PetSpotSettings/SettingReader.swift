import PetSpotJSON

/// Reads one value for one key, failing with a line that names the file, the key and what is wrong.
public struct SettingReader: Sendable {
    public let file: String
    public let key: String

    public init(file: String, key: String) {
        self.file = file
        self.key = key
    }

    public func fail(_ problem: String) -> ConfigurationError {
        ConfigurationError(file: file, key: key, problem: problem)
    }

    public func string(_ v: JSONValue) throws(ConfigurationError) -> String {
        guard let s = v.stringValue else { throw fail("expected a string, found \(v.typeName)") }
        return s
    }

    public func nonEmptyString(_ v: JSONValue) throws(ConfigurationError) -> String {
        let s = try string(v)
        guard !s.isEmpty else { throw fail("must not be empty") }
        return s
    }

    public func path(_ v: JSONValue) throws(ConfigurationError) -> String {
        let s = try nonEmptyString(v)
        guard !s.contains("\0") else { throw fail("a path cannot contain a NUL character") }
        return s
    }

    public func groupName(_ v: JSONValue) throws(ConfigurationError) -> String {
        let s = try nonEmptyString(v)
        guard !s.contains("\0") else { throw fail("a group name cannot contain a NUL character") }
        return s
    }

    public func bool(_ v: JSONValue) throws(ConfigurationError) -> Bool {
        guard case .bool(let b) = v else { throw fail("expected true or false, found \(v.typeName)") }
        return b
    }

    public func int(_ v: JSONValue, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard case .number(let n) = v, let i = n.exactInt else { throw fail("expected a whole number, found \(v.typeName == "a number" ? JSONWriter.string(v) : v.typeName)") }
        guard range.contains(i) else { throw fail("\(i) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return i
    }

    /// A number of days, decimals allowed (to the millionth: 86.4 ms), within `range` days.
    public func days(_ v: JSONValue, _ range: ClosedRange<Int>, allowingZero: Bool) throws(ConfigurationError) -> Duration {
        guard case .number(let n) = v, let decimal = DecimalLiteral(parsing: n.literal) else {
            throw fail("expected a number of days, found \(v.typeName)")
        }
        guard let microdays = decimal.scaled(decimals: 6), decimal.compare(to: range.lowerBound) >= 0, decimal.compare(to: range.upperBound) <= 0,
              allowingZero || microdays > 0
        else {
            throw fail("\(n.literal) is out of range \(allowingZero ? "" : "more than ")\(range.lowerBound)...\(range.upperBound) days")
        }
        return .milliseconds(microdays * 864 / 10)
    }

    public func choice<T: RawRepresentable & CaseIterable>(_ v: JSONValue, _ type: T.Type) throws(ConfigurationError) -> T where T.RawValue == String {
        let s = try string(v)
        guard let c = T(rawValue: s) else {
            throw fail("\"\(s)\" is not one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        return c
    }
}
