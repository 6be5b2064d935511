import PetSpotSQLite

/// Strict column readers: a value of the wrong type (a tampered file) throws instead of being
/// converted or trapping.
extension SQLiteRow {
    struct ColumnError: Error, CustomStringConvertible {
        let description: String
    }

    func text(_ name: String) throws -> String {
        guard let value = try optionalText(name) else { throw ColumnError(description: "column \(name) is NULL") }
        return value
    }

    func optionalText(_ name: String) throws -> String? {
        switch try value(name) {
        case .text(let text): return text
        case .null: return nil
        case let other: throw ColumnError(description: "column \(name) holds \(Self.kind(other)), not text")
        }
    }

    func integer(_ name: String) throws -> Int64 {
        guard let value = try optionalInteger(name) else { throw ColumnError(description: "column \(name) is NULL") }
        return value
    }

    func optionalInteger(_ name: String) throws -> Int64? {
        switch try value(name) {
        case .integer(let integer): return Int64(integer)
        case .null: return nil
        case let other: throw ColumnError(description: "column \(name) holds \(Self.kind(other)), not an integer")
        }
    }

    func optionalBlob(_ name: String) throws -> [UInt8]? {
        switch try value(name) {
        case .blob(let bytes): return bytes
        case .null: return nil
        case let other: throw ColumnError(description: "column \(name) holds \(Self.kind(other)), not a blob")
        }
    }

    /// An integer column that must fit `T` (an owner uid, a byte count).
    func integer<T: FixedWidthInteger>(_ name: String, as type: T.Type) throws -> T {
        let value = try integer(name)
        guard let fitting = T(exactly: value) else { throw ColumnError(description: "column \(name) holds \(value), out of range") }
        return fitting
    }

    private func value(_ name: String) throws -> SQLiteValue {
        guard let value = column(name) else { throw ColumnError(description: "no column \(name)") }
        return value
    }

    private static func kind(_ value: SQLiteValue) -> String {
        switch value {
        case .integer: "an integer"
        case .float: "a real"
        case .text: "text"
        case .blob: "a blob"
        case .null: "NULL"
        }
    }
}
