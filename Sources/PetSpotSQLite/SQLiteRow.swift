/// One row a statement returned: its values by column name.
public struct SQLiteRow: Sendable {
    /// The statement's column names, shared by all of its rows.
    public let columns: [String]
    public let values: [SQLiteValue]

    /// The value of the column called `name` (the first, should two share it); nil when there
    /// is no such column.
    public func column(_ name: String) -> SQLiteValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }
}
