@testable import PetSpotRelay
import Testing

@Suite("The PostgreSQL URL")
struct PostgresURLTests {
    @Test("good URLs", arguments: [
        ("postgres://relay:secret@db.example.org:6432/central?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem",
         PostgresURL(user: "relay", password: "secret", host: "db.example.org", port: 6432, database: "central", sslMode: .verifyFull, sslRootCert: "/etc/ssl/ca.pem")),
        ("postgresql://relay@127.0.0.1/central",
         PostgresURL(user: "relay", host: "127.0.0.1", database: "central")),
        ("postgres://relay:@localhost:5433/central?sslmode=require",
         PostgresURL(user: "relay", password: "", host: "localhost", port: 5433, database: "central", sslMode: .require)),
        ("postgres://re%40lay:p%3Aw%2Fd%40x@[::1]:5432/my%20db?sslmode=disable",
         PostgresURL(user: "re@lay", password: "p:w/d@x", host: "::1", database: "my db")),
        ("postgres://u:p@w@host/db",
         PostgresURL(user: "u", password: "p@w", host: "host", database: "db")),
        ("POSTGRES://u@[fe80::1]/db?sslmode=verify-full",
         PostgresURL(user: "u", host: "fe80::1", database: "db", sslMode: .verifyFull)),
    ])
    func parses(_ text: String, _ expected: PostgresURL) throws {
        #expect(try PostgresURL(parsing: text) == expected)
    }

    @Test("bad URLs are refused with what is wrong", arguments: [
        ("localhost/db", "expected postgres://user:password@host:port/database"),
        ("mysql://u@h/db", "the scheme must be postgres:// or postgresql://"),
        ("postgres://u@h", "the database name is missing"),
        ("postgres://u@h/", "the database name is missing"),
        ("postgres://u@h/a/b", "the database name cannot contain \"/\""),
        ("postgres://h/db", "the user name is missing"),
        ("postgres://:pw@h/db", "the user name is empty"),
        ("postgres://u@/db", "the host is missing"),
        ("postgres://u@h:0/db", "the port is not a number from 1 to 65535"),
        ("postgres://u@h:65536/db", "the port is not a number from 1 to 65535"),
        ("postgres://u@h:x/db", "the port is not a number from 1 to 65535"),
        ("postgres://u@h:/db", "the port is not a number from 1 to 65535"),
        ("postgres://u@[::1/db", "an IPv6 address opened with \"[\" is not closed with \"]\""),
        ("postgres://u@[::1]x/db", "expected \":port\" after the IPv6 address"),
        ("postgres://u@h/db?sslmode=prefer", "sslmode must be one of disable, require, verify-full"),
        ("postgres://u@h/db?sslmode", "a parameter after \"?\" has no value (name=value)"),
        ("postgres://u@h/db?sslmode=require&sslmode=disable", "the parameter \"sslmode\" is given twice"),
        ("postgres://u@h/db?application_name=x", "unknown parameter \"application_name\"; known: sslmode, sslrootcert"),
        ("postgres://u@h/db?sslrootcert=/ca.pem", "sslrootcert is only used with sslmode=verify-full"),
        ("postgres://u@h/db?sslmode=verify-full&sslrootcert=", "sslrootcert is empty; give the path of a PEM file"),
        ("postgres://u%4@h/db", "the user name has a \"%\" that is not followed by two hex digits"),
        ("postgres://u%ff@h/db", "the user name is not UTF-8 once decoded"),
        ("postgres://u@h/db#x", "a fragment (#...) has no meaning here"),
    ])
    func refuses(_ text: String, _ problem: String) {
        #expect(throws: PostgresURLError.self) { try PostgresURL(parsing: text) }
        do {
            _ = try PostgresURL(parsing: text)
        } catch {
            #expect(error.problem.hasPrefix(problem), "\(error.problem)")
            #expect(error.description.hasPrefix("the PostgreSQL URL "))
        }
    }

    @Test("a refused URL is described, never repeated: no part of a password shows, wherever it stands", arguments: [
        // A base64 password: "/" and "+" move where the parts seem to end.
        ("postgres://relay:c2Vj/cmV0+Zm9v=@h:99999/db", ["c2Vj", "cmV0", "Zm9v"]),
        ("postgres://relay:Qx7k?Zp4w=Jm9v@h/db", ["Qx7k", "Zp4w", "Jm9v"]),
        ("postgres://relay:Qx7k/Zp4w?Jm9v@Rt2y@h/db", ["Qx7k", "Zp4w", "Jm9v", "Rt2y"]),
        ("postgres://relay@h/db?password=s3cr3t", ["s3cr3t"]),
        ("postgres://relay@h/db?sslmode=s3cr3t", ["s3cr3t"]),
        ("postgres://relay@h:s3cr3t/db", ["s3cr3t"]),
        ("s3cr3t://relay@h/db", ["s3cr3t"]),
    ])
    func refusalHidesPassword(url: String, secrets: [String]) {
        do {
            _ = try PostgresURL(parsing: url)
            Issue.record("the URL was accepted")
        } catch {
            #expect(error.description.hasPrefix("the PostgreSQL URL cannot be used: "))
            for secret in secrets { #expect(!error.description.contains(secret), "\(error.description)") }
        }
    }

    @Test("a password= parameter is refused by name, its value not shown")
    func passwordParameter() {
        #expect(throws: PostgresURLError(url: "", problem: "unknown parameter \"password\"; known: sslmode, sslrootcert")) {
            try PostgresURL(parsing: "postgres://relay@h/db?password=s3cr3t")
        }
    }

    @Test("redacted form hides the password")
    func redacted() throws {
        let url = try PostgresURL(parsing: "postgres://relay:hunter2@db:5432/central?sslmode=verify-full&sslrootcert=/ca.pem")
        #expect(url.redacted == "postgres://relay:***@db:5432/central?sslmode=verify-full&sslrootcert=/ca.pem")
    }
}
