import Foundation
import PetSpotSQLite
import Testing

/// A connection to a new file in a new folder, closed and removed afterwards.
private func withDatabase<T>(_ body: (SQLiteDatabase, String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-sqlite-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("test.sqlite").path
    let database = try SQLiteDatabase(path: path)
    defer { try? database.close() }
    return try body(database, path)
}

@Suite("One SQLite connection with its statements kept")
struct SQLiteDatabaseTests {
    @Test("every value comes back as it was bound, in its storage class", arguments: [
        (SQLiteValue.integer(0), "integer"), (.integer(-1), "integer"), (.integer(Int.max), "integer"), (.integer(Int.min), "integer"),
        (.float(52.229_68), "real"), (.float(-0.5), "real"),
        (.text(""), "text"), (.text("Rex «ünïcødé» 🐕"), "text"), (.text("a\u{0}b"), "text"),
        (.blob([]), "blob"), (.blob([0, 1, 255]), "blob"), (.blob(Array(repeating: 7, count: 1 << 20)), "blob"),
        (.null, "null"),
    ])
    func roundTrip(value: SQLiteValue, storageClass: String) throws {
        try withDatabase { db, _ throws in
            let row = try #require(try db.row("SELECT ?1 AS value, typeof(?1) AS class", [value]))
            #expect(row.column("value") == value)
            #expect(row.column("class")?.string == storageClass)
            #expect(row.column("missing") == nil)
        }
    }

    @Test("a statement run again with new values binds them, blobs too, and sees the schema as it now is")
    func keptStatements() throws {
        try withDatabase { db, _ throws in
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB)")
            for id in 1...3 { try db.execute("INSERT INTO t (id, data) VALUES (?, ?)", [.integer(id), .blob(Array(repeating: UInt8(id), count: id))]) }
            // A NULL after blobs: no value of an earlier run is left bound.
            try db.execute("INSERT INTO t (id, data) VALUES (?, ?)", [.integer(4), .null])
            let select = "SELECT * FROM t ORDER BY id"
            #expect(try db.rows(select).map { $0.column("data") } == [.blob([1]), .blob([2, 2]), .blob([3, 3, 3]), .null])
            try db.execute("ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'new'")
            let rows = try db.rows(select)
            #expect(rows.first?.columns == ["id", "data", "note"])
            #expect(rows.map { $0.column("note")?.string } == ["new", "new", "new", "new"])
        }
    }

    @Test("a PRAGMA run again does its work again, and reads the value as it now is")
    func pragmasRunAgain() throws {
        try withDatabase { db, _ throws in
            for timeout in [5000, 0, 5000, 0, 250] {
                try db.execute("PRAGMA busy_timeout = \(timeout)")
                #expect(try db.row("PRAGMA busy_timeout")?.column("timeout") == .integer(timeout))
            }
        }
    }

    @Test("whether a transaction is open, also after a trigger rolled it back whole")
    func transactionState() throws {
        try withDatabase { db, _ throws in
            try db.execute("CREATE TABLE t (n INTEGER)")
            try db.execute("CREATE TRIGGER no_sevens BEFORE INSERT ON t WHEN NEW.n = 7 BEGIN SELECT RAISE(ROLLBACK, 'no sevens'); END")
            #expect(!db.isInTransaction)
            try db.execute("BEGIN IMMEDIATE")
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            let refused = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (7)") }
            #expect(refused?.isConstraint == true)
            #expect(!db.isInTransaction)
            #expect(try db.row("SELECT COUNT(*) AS n FROM t")?.column("n") == .integer(0))
        }
    }

    @Test("more distinct statements than are kept are each still right")
    func manyStatements() throws {
        try withDatabase { db, _ throws in
            for number in 0..<(SQLiteDatabase.maxKeptStatements * 2 + 10) {
                #expect(try db.row("SELECT \(number) + ? AS n", [.integer(1)])?.column("n") == .integer(number + 1))
            }
        }
    }

    @Test("a string of two statements is refused whole, and the wrong number of values is named")
    func misuse() throws {
        try withDatabase { db, _ throws in
            let two = #expect(throws: SQLiteError.self) { try db.execute("CREATE TABLE a (x); CREATE TABLE b (x)") }
            #expect(two?.message.contains("more than one statement") == true)
            #expect(try db.rows("SELECT name FROM sqlite_master").isEmpty)
            let count = #expect(throws: SQLiteError.self) { try db.execute("SELECT ?, ?", [.integer(1)]) }
            #expect(count?.message.contains("1 values for the 2 parameters") == true)
            #expect(count?.name == "SQLITE_RANGE")
            let empty = #expect(throws: SQLiteError.self) { try db.execute("  -- nothing ") }
            #expect(empty?.message.contains("no statement") == true)
            // Still usable after each.
            #expect(try db.row("SELECT 1 AS one")?.column("one") == .integer(1))
        }
    }

    @Test("a constraint undoes its statement only, and says which constraint")
    func constraint() throws {
        try withDatabase { db, _ throws in
            try db.execute("CREATE TABLE t (id TEXT UNIQUE, n INTEGER NOT NULL)")
            try db.inTransaction {
                try db.execute("INSERT INTO t VALUES ('a', 1)")
                let unique = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES ('a', 2)") }
                #expect(unique?.isConstraint == true)
                #expect(unique?.isUniqueConstraint == true)
                #expect(unique?.name == "SQLITE_CONSTRAINT")
                let notNull = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES ('b', NULL)") }
                #expect(notNull?.isConstraint == true)
                #expect(notNull?.isUniqueConstraint == false)
                try db.execute("INSERT INTO t VALUES ('c', 3)")
            }
            #expect(try db.rows("SELECT id FROM t ORDER BY id").map { $0.column("id")?.string } == ["a", "c"])
        }
    }

    @Test("a transaction whose body throws leaves nothing, and none stays open")
    func rollback() throws {
        struct Stop: Error {}
        try withDatabase { db, _ throws in
            try db.execute("CREATE TABLE t (n INTEGER)")
            #expect(throws: Stop.self) {
                try db.inTransaction { () throws -> Int in
                    try db.execute("INSERT INTO t VALUES (1)")
                    throw Stop()
                }
            }
            #expect(try db.row("SELECT COUNT(*) AS n FROM t")?.column("n") == .integer(0))
            try db.inTransaction { try db.execute("INSERT INTO t VALUES (2)") }
            #expect(try db.row("SELECT COUNT(*) AS n FROM t")?.column("n") == .integer(1))
        }
    }

    @Test("a file that is not a database, and a folder that does not exist, are told apart")
    func openingFailures() throws {
        try withDatabase { _, path throws in
            let other = path + ".text"
            try Data(String(repeating: "not a database\n", count: 400).utf8).write(to: URL(fileURLWithPath: other))
            let foreign = try SQLiteDatabase(path: other)
            let notADatabase = #expect(throws: SQLiteError.self) { try foreign.rows("SELECT * FROM sqlite_master") }
            #expect(notADatabase?.isNotADatabase == true)
            try foreign.close()
            let missing = #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path + ".d/none/test.sqlite") }
            #expect(missing?.isCannotOpen == true)
        }
    }

    @Test("a closed connection refuses, and closing twice is harmless")
    func closed() throws {
        try withDatabase { db, _ throws in
            _ = try db.row("SELECT 1 AS one")
            try db.close()
            try db.close()
            let refused = #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
            #expect(refused?.message == "the connection is closed")
        }
    }
}
