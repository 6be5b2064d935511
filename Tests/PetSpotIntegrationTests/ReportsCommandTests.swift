import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

/// `petspot reports list/show/export` on reports filed through the client library.
@Suite("petspot reports", .serialized)
struct ReportsCommandTests {
    /// A description that needs every kind of CSV quoting: a comma, quotes and a line break.
    static let trickyDescription = "He said \"hi\", then\nleft"

    @Test("list: a table newest first, and one JSON report per line with --json")
    func list() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let older = try fileReport(conn, chip: "616091234567890").submit[path: "report", "id"]!.stringValue!
        let newer = try fileReport(conn, chip: "12345678").submit[path: "report", "id"]!.stringValue!
        let socket = ["--socket", daemon.socketPath]

        let table = try runProgram(Paths.petspot, ["reports", "list"] + socket)
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(table.stdout)")
        #expect(lines.first?.hasPrefix("ID ") == true)
        #expect(lines.first?.contains("SUBMITTED") == true && lines.first?.contains("CHIP") == true)
        #expect(lines[1].hasPrefix(newer) && lines[2].hasPrefix(older), "newest first")
        #expect(lines[2].contains("61609-12345-67890"), "the chip formatted")
        #expect(lines[1].contains("12345-678"))
        #expect(lines[2].contains("Dog") && lines[2].contains("Beagle"))
        #expect(lines[2].contains("+48123456789, owner@example.org"))
        #expect(lines.first?.hasSuffix("DELIVERY") == true)
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix("  pending") }, "\(table.stdout)")
        // Columns line up: every row's submitted time starts where the header's does.
        let column = lines[0].range(of: "SUBMITTED")!.lowerBound.utf16Offset(in: lines[0])
        #expect(lines.dropFirst().allSatisfy { $0.dropFirst(column).hasPrefix("20") })

        let limited = try runProgram(Paths.petspot, ["reports", "list", "--limit", "1"] + socket)
        #expect(limited.stdout.contains(newer) && !limited.stdout.contains(older))
        #expect(limited.stdout.contains("more reports"))

        let json = try runProgram(Paths.petspot, ["reports", "list", "--json"] + socket)
        let reports = try json.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(reports.map { $0["id"] } == [.string(newer), .string(older)])
        #expect(reports.last == (try conn.result("reports.get", ["reportId": .string(older)])["report"]))
    }

    @Test("show: everything needed to act on the report; an unknown id exits 1")
    func show() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let report = try fileReport(conn, chip: "616091234567890").submit["report"]!
        let id = report["id"]!.stringValue!
        let show = try runProgram(Paths.petspot, ["reports", "show", id, "--socket", daemon.socketPath])
        #expect(show.status == 0)
        let lines = show.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let expected = [
            "Report \(id)",
            "Microchip      61609-12345-67890",
            "Species        Dog",
            "Race           Beagle",
            "Gender         Male",
            "Age            4 years",
            "Last seen      52.22968, 21.01223",
            "geo:52.22968,21.01223",
            "https://www.openstreetmap.org/?mlat=52.22968&mlon=21.01223#map=17/52.22968/21.01223",
            "Description    Brown collar",
            "Phone          +48123456789",
            "Email          owner@example.org",
            "Photo          image/png, \(pngBytes.count) B (\(pngBytes.count) bytes)",
            "sha256 \(report[path: "values", "photo", "sha256"]!.stringValue!)",
            "Missing since  \(report[path: "values", "disappearanceDate"]!.stringValue!)",
            "Submitted      \(report["submittedAt"]!.stringValue!)",
            "Delivery       pending",
        ]
        for line in expected {
            #expect(lines.contains(line), "\(line)\n\(show.stdout)")
        }
        let json = try runProgram(Paths.petspot, ["reports", "show", "--json", id, "--socket", daemon.socketPath])
        #expect(try JSONParser.parse(json.stdout) == report)

        let missing = try runProgram(Paths.petspot, ["reports", "show", "no-such-report", "--socket", daemon.socketPath])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("petspot: reports.get: no report \"no-such-report\" of yours [reportNotFound]"), "\(missing.stderr)")
    }

    @Test("control characters in stored reports reach no terminal: list, show and --json show them escaped; the daemon refuses new ones")
    func controlCharacters() throws {
        let daemon = try DaemonProcess().start()
        let id = try fileReport(try daemon.connect()).submit[path: "report", "id"]!.stringValue!
        // A report filed before the daemon refused control characters: a window title, a bell,
        // a C1 CSI and a screen clear in its race and description.
        #expect(try daemon.stop() == 0)
        let poison = """
            UPDATE report SET values_json = json_set(values_json,
              '$.race', 'Lab' || char(27) || ']0;owned' || char(7) || char(155) || '31m',
              '$.additionalDescription', 'white paws' || char(10) || char(27) || '[2J' || char(8232) || 'red collar')
            """
        #expect(try runProgram("/usr/bin/sqlite3", [daemon.databasePath, poison]).status == 0)
        _ = try daemon.start()
        let socket = ["--socket", daemon.socketPath]
        let raw: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{9B}", "\u{2028}"]
        func clean(_ output: String) -> Bool { !output.unicodeScalars.contains(where: raw.contains) }

        let list = try runProgram(Paths.petspot, ["reports", "list"] + socket)
        #expect(list.status == 0 && clean(list.stdout), "\(list.stdout.debugDescription)")
        #expect(list.stdout.contains(#"Lab\u{1B}]0;owned\u{7}\u{9B}31m"#), "\(list.stdout)")

        let show = try runProgram(Paths.petspot, ["reports", "show", id] + socket)
        #expect(show.status == 0 && clean(show.stdout), "\(show.stdout.debugDescription)")
        #expect(show.stdout.contains(#"Description    white paws"#), "\(show.stdout)")
        #expect(show.stdout.contains(#"\u{1B}[2J\u{2028}red collar"#), "\(show.stdout)")

        for arguments in [["reports", "list", "--json"], ["reports", "show", id, "--json"], ["call", "reports.get", #"{"reportId":"\#(id)"}"#]] {
            let json = try runProgram(Paths.petspot, arguments + socket)
            #expect(json.status == 0 && clean(json.stdout), "\(arguments): \(json.stdout.debugDescription)")
            // Escaped as JSON allows: the same document.
            let report = try JSONParser.parse(arguments.contains("list") ? String(json.stdout.split(separator: "\n").first!) : json.stdout)
            let race = report[path: "values", "race"] ?? report[path: "report", "values", "race"]
            #expect(race == .string("Lab\u{1B}]0;owned\u{07}\u{9B}31m"), "\(arguments): \(json.stdout)")
        }

        // New ones are refused with a field error, and nothing is stored.
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.continue", ["flowId": flowID])
        _ = try conn.result("flow.continue", ["flowId": flowID])
        let refused = try conn.result("flow.update", ["flowId": flowID, "values": ["species": "dog", "race": "Lab\u{9B}31m"]])["flow"]!
        let race = try #require(refused.field("race"))
        #expect(race["value"] == .null)
        #expect(race["error"] == "Remove the control characters (such as escape codes); use plain text.", "\(JSONWriter.string(race))")
    }

    @Test("export: every report across pages, as NDJSON and as RFC 4180 CSV, with its status, version and times")
    func export() throws {
        // Pages of two make five reports take three pages.
        let daemon = try DaemonProcess(arguments: ["--limit", "maxReportsPage=2"]).start()
        let conn = try daemon.connect()
        var filed: [String] = []
        for index in 0..<5 {
            let description = index == 2 ? Self.trickyDescription : "Report \(index)"
            filed.append(try fileReport(conn, description: description).submit[path: "report", "id"]!.stringValue!)
        }
        _ = try conn.result("reports.close", ["reportId": .string(filed[0]), "outcome": "withdrawn"])
        let socket = ["--socket", daemon.socketPath]

        let ndjson = try runProgram(Paths.petspot, ["reports", "export", "--format", "ndjson"] + socket)
        #expect(ndjson.status == 0)
        #expect(ndjson.stdout.hasSuffix("}\n"))
        let reports = try ndjson.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(reports.map { $0["id"]?.stringValue } == filed.reversed().map(Optional.some))
        #expect(reports[2][path: "values", "additionalDescription"] == .string(Self.trickyDescription))
        #expect(reports[0] == (try conn.result("reports.get", ["reportId": .string(filed[4])])["report"]))

        let csv = try runProgram(Paths.petspot, ["reports", "export", "--format", "csv"] + socket)
        #expect(csv.status == 0)
        #expect(csv.stdout.hasPrefix(
            "id,submittedAt,flowId,chipNumber,species,race,gender,age,disappearanceDate,latitude,longitude,"
                + "additionalDescription,contactPhone,contactEmail,photoMediaType,photoBytes,photoSha256,status,version,updatedAt,expiresAt,erased\r\n"))
        #expect(csv.stdout.contains(",\"He said \"\"hi\"\", then\nleft\","), "quoted, quotes doubled, the line break kept")
        let rows = Self.parseCSV(csv.stdout)
        #expect(rows.count == 6)
        #expect(rows.allSatisfy { $0.count == 22 })
        let header = rows[0]
        let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        #expect(records.map { $0["id"] } == filed.reversed().map(Optional.some))
        let tricky = records[2]
        #expect(tricky["additionalDescription"] == Self.trickyDescription)
        #expect(tricky["chipNumber"] == "61609123456789")
        #expect(tricky["latitude"] == "52.22968")
        #expect(tricky["longitude"] == "21.01223")
        #expect(tricky["age"] == "4")
        #expect(tricky["photoMediaType"] == "image/png")
        #expect(tricky["photoBytes"] == String(pngBytes.count))
        #expect(tricky["photoSha256"]?.count == 64)
        #expect(tricky["contactPhone"] == "+48123456789")
        let stored = try conn.result("reports.get", ["reportId": .string(filed[2])])["report"]!
        #expect(tricky["status"] == "missing" && tricky["version"] == "1" && tricky["erased"] == "false")
        #expect(tricky["updatedAt"] == stored["updatedAt"]?.stringValue && tricky["expiresAt"] == stored["expiresAt"]?.stringValue)
        #expect(records[4]["status"] == "withdrawn" && records[4]["version"] == "2" && records[4]["expiresAt"] == "", "\(records[4])")
    }

    @Test("export that cannot be written (a full disk) fails with the reason, not a crash")
    func exportToFullDisk() throws {
        let daemon = try DaemonProcess().start()
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        let result = try runProgram(Paths.petspot, ["reports", "export", "--format", "csv", "--socket", daemon.socketPath],
                                    standardOutput: full)
        #expect(result.status == 1)
        #expect(result.stderr == "petspot: cannot write to standard output: No space left on device\n")
    }

    /// A strict RFC 4180 reader: CRLF between records, quoted fields with doubled quotes.
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            index = text.index(after: index)
            if quoted {
                if c == "\"" {
                    if index < text.endIndex, text[index] == "\"" {
                        field.append("\"")
                        index = text.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\r\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.append(c)
            }
        }
        return rows
    }
}
