import PetSpotJSON

/// Reads a method's named parameters and refuses what it does not know, so that a typo
/// (`flowID` for `flowId`) is an error that names it instead of a silently ignored member.
///
///     var p = RPCParams(request.params)
///     let flowID = try p.requiredString("flowId")
///     let timeout = try p.optionalInt("timeoutMs", in: 1...600_000)
///     try p.finish()
public struct RPCParams {
    private let object: JSONObject
    /// The names the method asked for, for the message that names an unknown parameter.
    private var asked = AskedNames()
    /// The members read, by index: one bit each for the first 64 (a request has a handful).
    private var taken: UInt64 = 0

    public init(_ object: JSONObject) {
        self.object = object
    }

    private mutating func take(_ name: String) -> JSONValue? {
        asked.append(name)
        guard let index = object.index(of: name) else { return nil }
        if index < UInt64.bitWidth { taken |= 1 << UInt64(index) }
        let value = object.members[index].value
        return value.isNull ? nil : value
    }

    public mutating func requiredString(_ name: String) throws(RPCError) -> String {
        guard let s = try optionalString(name) else {
            throw RPCError(.invalidParams, "missing parameter \"\(name)\"", parameter: name)
        }
        return s
    }

    public mutating func optionalString(_ name: String) throws(RPCError) -> String? {
        guard let value = take(name) else { return nil }
        guard let s = value.stringValue else {
            throw RPCError(.invalidParams, "\"\(name)\" must be a string, not \(value.typeName)", parameter: name)
        }
        return s
    }

    public mutating func optionalInt(_ name: String, in range: ClosedRange<Int>) throws(RPCError) -> Int? {
        guard let value = take(name) else { return nil }
        guard case .number(let number) = value, let int = number.exactInt, range.contains(int) else {
            throw RPCError(.invalidParams, "\"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)", parameter: name)
        }
        return int
    }

    public mutating func optionalBool(_ name: String) throws(RPCError) -> Bool? {
        guard let value = take(name) else { return nil }
        guard case .bool(let bool) = value else {
            throw RPCError(.invalidParams, "\"\(name)\" must be true or false, not \(value.typeName)", parameter: name)
        }
        return bool
    }

    public mutating func requiredObject(_ name: String) throws(RPCError) -> JSONObject {
        guard let value = take(name) else {
            throw RPCError(.invalidParams, "missing parameter \"\(name)\"", parameter: name)
        }
        guard let object = value.objectValue else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an object, not \(value.typeName)", parameter: name)
        }
        return object
    }

    /// An array of `count` strings (a list of ids).
    public mutating func requiredStrings(_ name: String, count: ClosedRange<Int>) throws(RPCError) -> [String] {
        guard let value = take(name) else {
            throw RPCError(.invalidParams, "missing parameter \"\(name)\"", parameter: name)
        }
        guard case .array(let items) = value else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an array of strings, not \(value.typeName)", parameter: name)
        }
        guard count.contains(items.count) else {
            throw RPCError(.invalidParams, "\"\(name)\" must hold from \(count.lowerBound) to \(count.upperBound) strings, not \(items.count)", parameter: name)
        }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let s = item.stringValue else {
                throw RPCError(.invalidParams, "\"\(name)\"[\(index)] must be a string, not \(item.typeName)", parameter: name)
            }
            strings.append(s)
        }
        return strings
    }

    /// An array of `count` objects, each read by `read` with a reader of its own that refuses
    /// what it does not know; an error names the item (`name[i].member`).
    public mutating func requiredObjects<T>(_ name: String, count: ClosedRange<Int>,
                                            _ read: (inout RPCParams) throws(RPCError) -> T) throws(RPCError) -> [T] {
        guard let value = take(name) else {
            throw RPCError(.invalidParams, "missing parameter \"\(name)\"", parameter: name)
        }
        guard case .array(let items) = value, count.contains(items.count) else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an array of \(count.lowerBound) to \(count.upperBound) objects", parameter: name)
        }
        var read_: [T] = []
        read_.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let at = "\(name)[\(index)]"
            guard case .object(let object) = item else {
                throw RPCError(.invalidParams, "\"\(at)\" must be an object, not \(item.typeName)", parameter: at)
            }
            var inner = RPCParams(object)
            do throws(RPCError) {
                read_.append(try read(&inner))
                try inner.finish()
            } catch {
                throw RPCError(error.kind, "\(at).\(error.message)", parameter: error.parameter.map { "\(at).\($0)" } ?? at)
            }
        }
        return read_
    }

    /// An object member left as it came (what another reader checks whole); nil when absent or null.
    public mutating func optionalObject(_ name: String) throws(RPCError) -> JSONObject? {
        guard let value = take(name) else { return nil }
        guard let object = value.objectValue else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an object, not \(value.typeName)", parameter: name)
        }
        return object
    }

    /// An array of `count` objects `{idName: string, versionName: whole number ≥ 1}` (reports by
    /// id and version); nil when absent.
    public mutating func optionalVersions(_ name: String, count: ClosedRange<Int>, id idName: String,
                                          version versionName: String) throws(RPCError) -> [(id: String, version: Int)]? {
        guard let value = take(name) else { return nil }
        guard case .array(let items) = value, count.contains(items.count) else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an array of \(count.lowerBound) to \(count.upperBound) objects {\"\(idName)\", \"\(versionName)\"}",
                           parameter: name)
        }
        var pairs: [(id: String, version: Int)] = []
        pairs.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item, object.count == 2, let id = object[idName]?.stringValue,
                  case .number(let number)? = object[versionName], let version = number.exactInt, version >= 1
            else {
                throw RPCError(.invalidParams, "\"\(name)\"[\(index)] must be {\"\(idName)\": a string, \"\(versionName)\": a whole number from 1}",
                               parameter: "\(name)[\(index)]")
            }
            pairs.append((id, version))
        }
        return pairs
    }

    /// A number within `range` (decimals allowed), as its exact literal.
    public mutating func optionalNumber(_ name: String, in range: ClosedRange<Int>) throws(RPCError) -> JSONNumber? {
        guard let value = take(name) else { return nil }
        guard case .number(let number) = value, let decimal = DecimalLiteral(parsing: number.literal),
              decimal.compare(to: range.lowerBound) >= 0, decimal.compare(to: range.upperBound) <= 0
        else {
            throw RPCError(.invalidParams, "\"\(name)\" must be a number from \(range.lowerBound) to \(range.upperBound)", parameter: name)
        }
        return number
    }

    /// A position `{latitude, longitude}` in degrees, each a number in its range; nil when absent.
    public mutating func optionalPosition(_ name: String) throws(RPCError) -> (latitude: JSONNumber, longitude: JSONNumber)? {
        guard let value = take(name) else { return nil }
        guard case .object(let object) = value else {
            throw RPCError(.invalidParams, "\"\(name)\" must be an object {\"latitude\", \"longitude\"}, not \(value.typeName)", parameter: name)
        }
        var inner = RPCParams(object)
        let latitude: JSONNumber?, longitude: JSONNumber?
        do throws(RPCError) {
            latitude = try inner.optionalNumber("latitude", in: -90...90)
            longitude = try inner.optionalNumber("longitude", in: -180...180)
            try inner.finish()
        } catch {
            throw RPCError(error.kind, "\(name).\(error.message)", parameter: error.parameter.map { "\(name).\($0)" })
        }
        guard let latitude else { throw RPCError(.invalidParams, "missing parameter \"\(name).latitude\"", parameter: "\(name).latitude") }
        guard let longitude else { throw RPCError(.invalidParams, "missing parameter \"\(name).longitude\"", parameter: "\(name).longitude") }
        return (latitude, longitude)
    }

    /// One of a fixed set of words, e.g. a locale.
    public mutating func optionalChoice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws(RPCError) -> T? where T.RawValue == String {
        guard let text = try optionalString(name) else { return nil }
        guard let choice = T(rawValue: text) else {
            let choices = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw RPCError(.invalidParams, "\"\(name)\" must be one of \(choices), not \"\(text)\"", parameter: name)
        }
        return choice
    }

    /// Refuses every member that was not read.
    public func finish() throws(RPCError) {
        // Every member taken: the usual answer, without comparing a name.
        if object.count <= UInt64.bitWidth, taken == (object.count == UInt64.bitWidth ? ~0 : (1 << UInt64(object.count)) - 1) { return }
        for (index, member) in object.members.enumerated()
        where index < UInt64.bitWidth ? taken & (1 << UInt64(index)) == 0 : !asked.contains(member.key) {
            let names = Set(asked.all).sorted()
            let known = names.map { "\"\($0)\"" }.joined(separator: ", ")
            let takes = names.isEmpty ? "this method takes no parameters" : "it takes \(known)"
            throw RPCError(.invalidParams, "unknown parameter \"\(member.key)\"; \(takes)", parameter: member.key)
        }
    }
}

/// The names a method asked for, kept only to name them in a refusal. A method takes a handful,
/// so the first four are kept inline: reading a request's parameters allocates nothing.
private struct AskedNames {
    private var first: (String?, String?, String?, String?) = (nil, nil, nil, nil)
    private var more: [String] = []

    /// Appends without looking for it first: a name asked twice is named once in a refusal.
    mutating func append(_ name: String) {
        if first.0 == nil { first.0 = name } else if first.1 == nil { first.1 = name }
        else if first.2 == nil { first.2 = name } else if first.3 == nil { first.3 = name } else { more.append(name) }
    }

    func contains(_ name: String) -> Bool {
        first.0 == name || first.1 == name || first.2 == name || first.3 == name || more.contains(name)
    }

    var all: [String] { [first.0, first.1, first.2, first.3].compactMap { $0 } + more }
}
