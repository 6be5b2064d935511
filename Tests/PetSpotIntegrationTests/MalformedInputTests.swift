import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

@Suite("Malformed input gets the right error and the connection stays usable", .serialized)
struct MalformedInputTests {
    static let cases: [(name: String, line: [UInt8], kind: String, idEcho: JSONValue)] = [
        ("not JSON", Array("hello".utf8), "parseError", .null),
        ("truncated JSON", Array(#"{"id":1,"method":"#.utf8), "parseError", .null),
        ("invalid UTF-8", [0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D], "parseError", .null),
        ("deep nesting", Array((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8), "parseError", .null),
        ("a scalar", Array("42".utf8), "invalidRequest", .null),
        ("an empty batch", Array("[]".utf8), "invalidRequest", .null),
        ("method of the wrong type", Array(#"{"id":7,"method":12}"#.utf8), "invalidRequest", 7),
        ("params of the wrong type", Array(#"{"id":8,"method":"flow.get","params":[1]}"#.utf8), "invalidParams", 8),
        ("parameter of the wrong type", Array(#"{"id":9,"method":"flow.get","params":{"flowId":5}}"#.utf8), "invalidParams", 9),
        ("a huge number as a parameter", Array(#"{"id":10,"method":"reports.list","params":{"limit":1e999999}}"#.utf8), "invalidParams", 10),
        ("a huge id is echoed exactly", Array(#"{"id":123456789012345678901234567890,"method":"nope"}"#.utf8), "methodNotFound",
         .number(JSONNumber(validatedLiteral: "123456789012345678901234567890"))),
        ("wrong jsonrpc version", Array(#"{"jsonrpc":"1.0","id":"s","method":"daemon.info"}"#.utf8), "invalidRequest", "s"),
        ("unknown method", Array(#"{"id":11,"method":"flow.explode"}"#.utf8), "methodNotFound", 11),
        ("a repeated member name", Array(#"{"id":1,"id":2,"method":"daemon.info"}"#.utf8), "parseError", .null),
    ]

    @Test("every kind of bad line", arguments: cases.indices)
    func badLine(index: Int) throws {
        let testCase = Self.cases[index]
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        try conn.send(testCase.line + [0x0A])
        let answer = try #require(try conn.readValue())
        #expect(answer.errorKind == testCase.kind, "\(testCase.name): \(JSONWriter.string(answer))")
        #expect(answer["id"] == testCase.idEcho, "\(testCase.name)")
        #expect(answer["error"]?["message"]?.stringValue?.isEmpty == false)
        // Still usable afterwards.
        #expect(try conn.result("daemon.info")["name"] == "petspotd", "\(testCase.name)")
    }

    @Test("a scalar batch answers each element; notifications answer nothing")
    func batches() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let answer = try conn.raw(#"[1, {"id":1,"method":"daemon.info"}, {"method":"daemon.info"}, "x"]"#)
        let items = try #require(answer.arrayValue)
        #expect(items.count == 3)
        #expect(items[0].errorKind == "invalidRequest")
        #expect(items[1][path: "result", "name"] == "petspotd")
        #expect(items[2].errorKind == "invalidRequest")
        // A batch of notifications only: no answer at all; the next answer is the next request's.
        try conn.send(Array(#"[{"method":"daemon.info"}]"#.utf8) + [0x0A])
        try conn.send(Array("\n   \r\n".utf8))
        #expect(try conn.raw(#"{"id":"after","method":"daemon.info"}"#)["id"] == "after")
    }

    @Test("a notification is never answered, even when its envelope or params are wrong")
    func silentNotifications() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let notifications = [
            #"{"method":"daemon.info","params":[]}"#,
            #"{"jsonrpc":"1.0","method":"daemon.info"}"#,
            #"{"method":"daemon.info","extra":1}"#,
            #"{"method":"flow.get","params":{"flowId":5}}"#,
            #"{"method":"flow.explode"}"#,
            #"[{"method":"daemon.info","params":"x"}]"#,
        ]
        try conn.send(Array((notifications.joined(separator: "\n") + "\n").utf8))
        #expect(try conn.raw(#"{"id":"after","method":"daemon.info"}"#)["id"] == "after")
    }

    @Test("answers come in request order, \\r\\n accepted, and never contain a raw newline")
    func ordering() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        var lines: [UInt8] = []
        for i in 0..<50 { lines += Array("{\"id\":\(i),\"method\":\"daemon.info\"}\r\n".utf8) }
        try conn.send(lines)
        for i in 0..<50 {
            let line = try #require(try conn.readLine())
            #expect(!line.contains(0x0D))
            let answer = try JSONParser.parse(line)
            #expect(answer["id"] == .int(i))
        }
    }

    @Test("a line over the limit is answered with lineTooLong and skipped to its newline")
    func oversizedLine() throws {
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1024"]).start()
        let conn = try daemon.connect()
        // At the limit: accepted (padded with spaces inside the JSON).
        let base = #"{"id":1,"method":"daemon.info"}"#
        let atLimit = base + String(repeating: " ", count: 1024 - base.utf8.count)
        #expect(try conn.raw(atLimit)["id"] == 1)
        // Over the limit, sent in pieces: one error, then the connection goes on.
        let over = #"{"id":2,"method":"daemon.info","params":{"x":""# + String(repeating: "a", count: 200_000) + "\"}}"
        try conn.send(Array(over.utf8.prefix(100_000)))
        try conn.send(Array(over.utf8.dropFirst(100_000)) + [0x0A])
        let tooLong = try #require(try conn.readValue())
        #expect(tooLong.errorKind == "lineTooLong")
        #expect(tooLong[path: "error", "data", "max"] == 1024)
        #expect(try conn.raw(#"{"id":3,"method":"daemon.info"}"#)["id"] == 3)
        let oneOver = base + String(repeating: " ", count: 1025 - base.utf8.count)
        #expect(try conn.raw(oneOver).errorKind == "lineTooLong")
    }
}
