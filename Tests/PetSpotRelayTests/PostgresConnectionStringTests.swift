@testable import PetSpotRelay
import Testing

/// The connection string as libpq reads it, and what the relay shows of it.
@Suite("The PostgreSQL connection string")
struct PostgresConnectionStringTests {
    @Test("URLs and key=value pairs as libpq reads them; the masked form never holds a password", arguments: [
        ("postgres://relay:secret@db.example.org:6432/central?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem",
         "user=relay password=*** dbname=central host=db.example.org port=6432 sslmode=verify-full sslrootcert=/etc/ssl/ca.pem",
         "db.example.org:6432"),
        ("postgresql://relay@127.0.0.1/central", "user=relay dbname=central host=127.0.0.1", "127.0.0.1:5432"),
        ("postgres://re%40lay:p%3Aw%2Fd%40x@[::1]:5432/my%20db?application_name=kiosk",
         "user=re@lay password=*** dbname='my db' host=::1 port=5432 application_name=kiosk", "[::1]:5432"),
        ("postgresql://relay@db1:5432,db2:5433/central?target_session_attrs=read-write",
         "user=relay dbname=central host=db1,db2 port=5432,5433 target_session_attrs=read-write", "db1:5432,db2:5433"),
        ("host=db1,db2 port=6000 user=relay password='it\\'s a secret' dbname=central",
         "user=relay password=*** dbname=central host=db1,db2 port=6000", "db1:6000,db2:6000"),
        ("service=central", "service=central", "the default server (PGHOST, else the local socket)"),
        ("host=/run/postgresql dbname=central", "dbname=central host=/run/postgresql", "/run/postgresql:5432"),
    ])
    func parses(_ text: String, _ masked: String, _ servers: String) throws {
        let target = try PostgresConnectionString(parsing: text)
        #expect(target.masked == masked)
        #expect(target.servers == servers)
        #expect(!target.masked.contains("secret") && !target.masked.contains("p:w"))
    }

    @Test("what libpq refuses is refused with its reason, and no piece of the text that may be a password", arguments: [
        ("postgres://relay:hunter2@db/central?sslmod=require", "invalid URI query parameter: (not shown)"),
        ("host=db password=hunter2 extra words", "missing \"=\" after (not shown) in connection info string"),
        ("host=db password=hunter2 hunter3=x", "invalid connection option (not shown)"),
        ("host=db password='hunter2", "unterminated quoted string in connection info string"),
        ("postgres://relay:hunter2@[::1/central", "end of string reached when looking for matching \"]\" in IPv6 host address in URI: (not shown)"),
        ("postgres://relay:hunter2@db:0/central", "a port is not a number from 1 to 65535"),
        ("postgres://relay:hunter2@db:70000/central", "a port is not a number from 1 to 65535"),
        ("host=db1,db2 port=5432,x password=hunter2", "a port is not a number from 1 to 65535"),
        ("postgresql://relay:hunter2@hunter3@db/central", "an \"@\" is left after the user part; percent-encode @, / and ? in a URL's password (%40, %2F, %3F)"),
        ("postgresql://relay:hunter2/hunter3@db/central", "an \"@\" is left after the user part; percent-encode @, / and ? in a URL's password (%40, %2F, %3F)"),
    ])
    func refuses(_ text: String, _ problem: String) {
        do {
            _ = try PostgresConnectionString(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.problem == problem)
            #expect(!error.description.contains("hunter"))
        }
    }

    @Test("a known keyword in libpq's message is shown, anything else is not")
    func quotedKeywords() {
        #expect(PostgresConnectionString.withoutQuotedText("invalid sslmode value: \"sslmode\"\n") == "invalid sslmode value: \"sslmode\"")
        #expect(PostgresConnectionString.withoutQuotedText("bad \"s3cret\" and \"half") == "bad (not shown) and (not shown)")
        #expect(PostgresConnectionString.withoutQuotedText("missing \"=\" after \"x\"") == "missing \"=\" after (not shown)")
    }

    @Test("a value is quoted for key=value only when it must be")
    func quoting() {
        #expect(PostgresConnectionString.quoted("plain") == "plain")
        #expect(PostgresConnectionString.quoted("") == "''")
        #expect(PostgresConnectionString.quoted(#"a b'c\d"#) == #"'a b\'c\\d'"#)
    }
}
