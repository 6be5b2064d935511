import PetSpotJSON

/// One line a client should never send, and what the daemon must answer to it.
struct BadLine {
    enum Answer {
        /// One error answer of this `data.kind`, under this id.
        case error(String, id: JSONValue)
        /// Nothing at all: a notification, or only notifications.
        case nothing
        /// One array answer: per element a `data.kind`, or nil for a result.
        case batch([String?])
    }

    let name: String
    let bytes: [UInt8]
    let answer: Answer
}

/// A deterministic corpus of bad lines, built from the limits of the daemon it is sent to and
/// one of the caller's flows (open, on step `chip`), so that parameters are checked against a
/// flow that exists. Every request gets its own id, `c1`, `c2`, …, so each answer shows which
/// line it belongs to.
struct BadLineCorpus {
    let maxLineBytes: Int
    let maxBatchSize: Int
    let maxJSONDepth: Int
    let maxReportsPage: Int
    let locationTimeoutMs: Int
    let flowID: String
    private(set) var lines: [BadLine] = []
    private var seen: Set<[UInt8]> = []
    private var counter = 0

    init(maxLineBytes: Int, maxBatchSize: Int, maxJSONDepth: Int, maxReportsPage: Int, locationTimeoutMs: Int, flowID: String) {
        self.maxLineBytes = maxLineBytes
        self.maxBatchSize = maxBatchSize
        self.maxJSONDepth = maxJSONDepth
        self.maxReportsPage = maxReportsPage
        self.locationTimeoutMs = locationTimeoutMs
        self.flowID = flowID
        addSyntaxErrors()
        addInvalidUTF8()
        addSurrogates()
        addControlBytes()
        addByteOrderMarks()
        addNesting()
        addHugeNumbers()
        addEnvelopes()
        addUnknownMethods()
        addParameters()
        addFlowValues()
        addBatches()
        addLineLengths()
    }

    // MARK: building

    private mutating func nextID() -> String {
        counter += 1
        return "c\(counter)"
    }

    /// A line already in the corpus (a prefix shared by two requests) is not sent twice.
    private mutating func add(_ name: String, _ bytes: [UInt8], _ answer: BadLine.Answer) {
        guard seen.insert(bytes).inserted else { return }
        lines.append(BadLine(name: name, bytes: bytes, answer: answer))
    }

    private mutating func add(_ name: String, _ text: String, _ answer: BadLine.Answer) {
        add(name, Array(text.utf8), answer)
    }

    private static let parseError = BadLine.Answer.error("parseError", id: .null)

    /// A request with a fresh id, and (with `notification`) the same without an id, which must
    /// stay unanswered however wrong it is.
    private mutating func request(_ name: String, method: String, params: String?, kind: String, notification: Bool = true) {
        let id = nextID()
        let tail = params.map { #","params":\#($0)"# } ?? ""
        add(name, #"{"id":"\#(id)","method":\#(method)\#(tail)}"#, .error(kind, id: .string(id)))
        if notification {
            add(name + " (notification)", #"{"method":\#(method)\#(tail)}"#, .nothing)
        }
    }

    private static func quoted(_ s: String) -> String { "\"\(s)\"" }

    // MARK: the corpus

    private mutating func addSyntaxErrors() {
        let whole = [
            "hello", "{", "}", "[", "]", "{]", "[}", "{{}}", "[[]", "[]]", ",", ":", "\"", "\"\"\"", "'x'",
            "{'id':1,'method':'daemon.info'}", "{id:1,method:\"daemon.info\"}", "undefined", "NaN", "Infinity",
            "-Infinity", "True", "False", "None", "nul", "tru", "fals", "nulll", "truee", "01", "-", "--1", "1.", ".5",
            "+1", "1e", "1e+", "1E-", "0x10", "1_000", "1,000", "// comment", "/* comment */ {}", "#!",
            "{\"id\":1,\"method\":\"daemon.info\"}x", "{\"id\":1,\"method\":\"daemon.info\"}{\"id\":2,\"method\":\"daemon.info\"}",
            "{\"id\":1,\"method\":\"daemon.info\"},", "{\"id\":1,\"method\":\"daemon.info\",}", "{\"id\":1,,\"method\":\"daemon.info\"}",
            "{,\"id\":1,\"method\":\"daemon.info\"}", "{\"id\" 1,\"method\":\"daemon.info\"}", "{\"id\":1 \"method\":\"daemon.info\"}",
            "{\"id\"::1,\"method\":\"daemon.info\"}", "{\"id\":1;\"method\":\"daemon.info\"}", "{\"id\"=1,\"method\":\"daemon.info\"}",
            "[1,]", "[,1]", "[1 2]", "[1,,2]", "{\"a\"}", "{\"a\":}", "{:1}", "{1:1}", "{null:1}", "{\"a\":1 \"b\":2}",
            "\"unterminated", "{\"id\":\"unterminated,\"method\":\"daemon.info\"}", "{\"id\":1,\"id\":2,\"method\":\"daemon.info\"}",
            "{\"method\":\"nope\",\"method\":\"nope\"}", "{\"id\":1,\"method\":\"flow.get\",\"params\":{\"flowId\":\"a\",\"flowId\":\"b\"}}",
            "[{\"id\":1,\"method\":\"nope\",\"id\":2}]",
        ]
        for text in whole { add("syntax: \(text.prefix(40))", text, Self.parseError) }

        // A bad token wherever a value goes.
        let tokens = [
            "tru", "nul", "NaN", "Infinity", "-Infinity", "01", "-01", "00", "1.", ".5", "+1", "1e", "1e+", "-", "0x10", "1..2",
            "1.2.3", "1e2e3", "'x'", "undefined", "\"\\x41\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\uZZZZ\"", "\"\\U0041\"", "\"\\'\"",
            "\"\\a\"", "\"\\0\"", "\"a\\\"", "\"\\", "[", "{", "[1,]", "{\"a\":1,}", "{\"a\"}", "\"a\"\"b\"", "truefalse", "TRUE",
        ]
        for token in tokens {
            add("bad token \(token) as the id", #"{"id":\#(token),"method":"daemon.info"}"#, Self.parseError)
            add("bad token \(token) as the method", #"{"id":1,"method":\#(token)}"#, Self.parseError)
            add("bad token \(token) as a parameter", #"{"id":1,"method":"reports.list","params":{"limit":\#(token)}}"#, Self.parseError)
            add("bad token \(token) in a batch", "[\(token)]", Self.parseError)
        }

        // Every proper prefix of whole requests: cut anywhere, never complete.
        let complete = [
            #"{"jsonrpc":"2.0","id":"cut","method":"flow.update","params":{"flowId":"f","values":{"age":4,"race":null}}}"#,
            #"[{"id":1,"method":"daemon.info"},{"method":"species.list","params":{"locale":"pl"}}]"#,
            #"{"id":-1.5e+3,"method":"reports.list","params":{"limit":true,"cursor":false}}"#,
        ]
        for text in complete {
            let bytes = Array(text.utf8)
            for length in 1..<bytes.count {
                // A prefix ending in blanks is the same as the shorter one.
                add("prefix \(length) of \(text.prefix(20))", Array(bytes[..<length]), Self.parseError)
            }
        }
    }

    private mutating func addInvalidUTF8() {
        let sequences: [(String, [UInt8])] = [
            ("a lone continuation byte", [0x80]), ("a lone 0xBF", [0xBF]), ("0xC0 0x80 (overlong NUL)", [0xC0, 0x80]),
            ("0xC1 0xBF (overlong)", [0xC1, 0xBF]), ("0xE0 0x80 0xAF (overlong /)", [0xE0, 0x80, 0xAF]),
            ("0xF0 0x80 0x80 0xAF (overlong)", [0xF0, 0x80, 0x80, 0xAF]), ("a surrogate in UTF-8 (0xED 0xA0 0x80)", [0xED, 0xA0, 0x80]),
            ("a low surrogate in UTF-8 (0xED 0xBF 0xBF)", [0xED, 0xBF, 0xBF]), ("past U+10FFFF (0xF4 0x90 0x80 0x80)", [0xF4, 0x90, 0x80, 0x80]),
            ("0xF5", [0xF5, 0x80, 0x80, 0x80]), ("0xFE", [0xFE]), ("0xFF", [0xFF]), ("a cut two-byte sequence", [0xC3]),
            ("a cut three-byte sequence", [0xE2, 0x82]), ("a cut four-byte sequence", [0xF0, 0x9F, 0x98]),
            ("a two-byte start before ASCII", [0xC3, 0x28]), ("Latin-1 é", [0xE9]), ("CESU-8 pair", [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
        ]
        for (name, bad) in sequences {
            let a = Array(#"{"id":"c","method":"daemon"#.utf8), b = Array(#".info"}"#.utf8)
            add("UTF-8: \(name) in the method", a + bad + b, Self.parseError)
            add("UTF-8: \(name) in the id", Array(#"{"id":"x"#.utf8) + bad + Array(#"","method":"daemon.info"}"#.utf8), Self.parseError)
            add("UTF-8: \(name) in a member name", Array(#"{"id":1,""#.utf8) + bad + Array(#"":1,"method":"daemon.info"}"#.utf8), Self.parseError)
            add("UTF-8: \(name) in a parameter", Array(#"{"id":1,"method":"flow.get","params":{"flowId":""#.utf8) + bad + Array(#""}}"#.utf8), Self.parseError)
            add("UTF-8: \(name) outside strings", Array(#"{"id":1,"#.utf8) + bad + Array(#""method":"daemon.info"}"#.utf8), Self.parseError)
            add("UTF-8: \(name) alone", bad, Self.parseError)
            add("UTF-8: \(name) in a notification", Array(#"{"method":"nope"#.utf8) + bad + Array(#""}"#.utf8), Self.parseError)
        }
    }

    private mutating func addSurrogates() {
        let lone = [
            #"\uD800"#, #"\uDBFF"#, #"\uDC00"#, #"\uDFFF"#, #"\ud800"#, #"\uD800a"#, #"\uD800\u0041"#, #"\uD800\uD800"#,
            #"\uDC00\uD800"#, #"\uD800\n"#, #"\uD83D"#, #"\uDE00\uD83D"#, #"x\uD800"#, #"\uD800\uDBFF"#, #"\uD800\uE000"#,
            #"\uD800\"#, #"\uD800\u"#, #"\uD800\uDC0"#,
        ]
        for escape in lone {
            add("surrogate \(escape) in the method", #"{"id":1,"method":"\#(escape)"}"#, Self.parseError)
            add("surrogate \(escape) in the id", #"{"id":"\#(escape)","method":"daemon.info"}"#, Self.parseError)
            add("surrogate \(escape) in a member name", #"{"id":1,"method":"daemon.info","\#(escape)":1}"#, Self.parseError)
            add("surrogate \(escape) in a parameter", #"{"id":1,"method":"flow.get","params":{"flowId":"\#(escape)"}}"#, Self.parseError)
            add("surrogate \(escape) in a notification", #"{"method":"flow.get","params":{"flowId":"\#(escape)"}}"#, Self.parseError)
        }
        // Paired surrogates are good JSON: the line is then wrong for what it says, not how.
        let pairs = [#"\uD83D\uDE00"#, #"\uD800\uDC00"#, #"\uDBFF\uDFFF"#, #"\ud83d\ude00"#]
        for pair in pairs {
            request("paired surrogates \(pair) as the method", method: Self.quoted(pair), params: nil, kind: "methodNotFound")
            request("paired surrogates \(pair) in a flow id", method: #""flow.get""#, params: #"{"flowId":"\#(pair)"}"#, kind: "flowNotFound")
            request("paired surrogates \(pair) as a parameter name", method: #""daemon.info""#, params: #"{"\#(pair)":1}"#, kind: "invalidParams")
            request("paired surrogates \(pair) as a locale", method: #""species.list""#, params: #"{"locale":"\#(pair)"}"#, kind: "invalidParams")
            add("paired surrogates \(pair) in the id", #"{"id":"\#(pair)","method":"nope"}"#,
                .error("methodNotFound", id: try! JSONParser.parse("\"\(pair)\"")))
        }
    }

    private mutating func addControlBytes() {
        for byte in UInt8(0x00)...UInt8(0x1F) where byte != 0x0A {
            let hex = "0x" + String(byte, radix: 16)
            add("raw \(hex) in the method", Array(#"{"id":1,"method":"daemon."#.utf8) + [byte] + Array(#"info"}"#.utf8), Self.parseError)
            add("raw \(hex) in the id", Array(#"{"id":"a"#.utf8) + [byte] + Array(#"b","method":"daemon.info"}"#.utf8), Self.parseError)
            if ![0x09, 0x0D].contains(byte) {
                add("raw \(hex) before the request", [byte] + Array(#"{"id":1,"method":"daemon.info"}"#.utf8), Self.parseError)
                add("raw \(hex) between members", Array(#"{"id":1,"#.utf8) + [byte] + Array(#""method":"daemon.info"}"#.utf8), Self.parseError)
            }
        }
        add("a NUL alone", [0x00], Self.parseError)
        add("NULs alone", [0x00, 0x00, 0x00, 0x00], Self.parseError)
        add("a NUL after the request", Array(#"{"id":1,"method":"daemon.info"}"#.utf8) + [0x00], Self.parseError)
        add("a NUL in a number", Array(#"{"id":1"#.utf8) + [0x00] + Array(#"2,"method":"daemon.info"}"#.utf8), Self.parseError)
        add("a NUL in a parameter", Array(#"{"id":1,"method":"flow.get","params":{"flowId":"a"#.utf8) + [0x00] + Array(#""}}"#.utf8), Self.parseError)
        // Escaped NULs are good JSON.
        request("an escaped NUL in the method", method: #""daemon.info\u0000""#, params: nil, kind: "methodNotFound")
        request("an escaped NUL as the method", method: #""\u0000""#, params: nil, kind: "methodNotFound")
        request("an escaped NUL as a parameter name", method: #""daemon.info""#, params: #"{"\u0000":1}"#, kind: "invalidParams")
        request("an escaped NUL in a flow id", method: #""flow.get""#, params: #"{"flowId":"\#(flowID)\u0000"}"#, kind: "flowNotFound")
        request("an escaped NUL as a locale", method: #""flow.start""#, params: #"{"locale":"en\u0000"}"#, kind: "invalidParams")
        add("an escaped NUL in the id", #"{"id":"\u0000","method":"nope"}"#, .error("methodNotFound", id: .string("\u{0}")))
    }

    private mutating func addByteOrderMarks() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let request = Array(#"{"id":1,"method":"daemon.info"}"#.utf8)
        add("a BOM before a request", bom + request, Self.parseError)
        add("a BOM before a notification", bom + Array(#"{"method":"daemon.info"}"#.utf8), Self.parseError)
        add("a BOM alone", bom, Self.parseError)
        add("two BOMs before a request", bom + bom + request, Self.parseError)
        add("a BOM after a request", request + bom, Self.parseError)
        add("a BOM between members", Array(#"{"id":1,"#.utf8) + bom + Array(#""method":"daemon.info"}"#.utf8), Self.parseError)
        add("a BOM after blanks", Array("  ".utf8) + bom + request, Self.parseError)
        add("a UTF-16LE BOM", [0xFF, 0xFE] + request, Self.parseError)
        add("a UTF-16BE BOM", [0xFE, 0xFF] + request, Self.parseError)
        add("a request in UTF-16LE", [0xFF, 0xFE] + request.flatMap { [$0, 0] }, Self.parseError)
        add("a request in UTF-16BE", request.flatMap { [0, $0] }, Self.parseError)
        add("a request in UTF-32LE", request.flatMap { [$0, 0, 0, 0] }, Self.parseError)
        // U+FEFF inside a string is a character like any other.
        self.request("a BOM in the method", method: "\"\u{FEFF}daemon.info\"", params: nil, kind: "methodNotFound")
        self.request("an escaped BOM in the method", method: #""\uFEFFdaemon.info""#, params: nil, kind: "methodNotFound")
        self.request("a BOM in a flow id", method: #""flow.get""#, params: "{\"flowId\":\"\u{FEFF}\(flowID)\"}", kind: "flowNotFound")
    }

    private mutating func addNesting() {
        let past = maxJSONDepth + 1
        for depth in [past, past + 1, 100, 1_000, 10_000, 100_000] {
            let arrays = String(repeating: "[", count: depth)
            add("\(depth) nested arrays", arrays + String(repeating: "]", count: depth), Self.parseError)
            add("\(depth) nested arrays, never closed", arrays, Self.parseError)
            add("\(depth) nested objects", String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth), Self.parseError)
            add("\(depth) nested objects, never closed", String(repeating: #"{"":"#, count: depth), Self.parseError)
            add("\(depth) nested arrays and objects", String(repeating: #"[{"a":"#, count: depth / 2 + 1), Self.parseError)
            add("\(depth) nested arrays in a parameter",
                #"{"id":1,"method":"reports.list","params":{"limit":"# + arrays + String(repeating: "]", count: depth) + "}}", Self.parseError)
        }
        // At the depth limit the line is JSON, so it is answered for what it is.
        let top = String(repeating: "[", count: maxJSONDepth) + String(repeating: "]", count: maxJSONDepth)
        add("arrays nested to the depth limit", top, .batch(["invalidRequest"]))
        // The request is depth 1, params 2, so a parameter may nest maxJSONDepth - 2 more.
        let inner = maxJSONDepth - 2
        request("a parameter nested to the depth limit", method: #""daemon.info""#,
                params: #"{"x":"# + String(repeating: "[", count: inner) + String(repeating: "]", count: inner) + "}", kind: "invalidParams")
        add("a parameter nested one past the depth limit",
            #"{"id":1,"method":"daemon.info","params":{"x":"# + String(repeating: "[", count: inner + 1) + String(repeating: "]", count: inner + 1) + "}}",
            Self.parseError)
    }

    private mutating func addHugeNumbers() {
        let ids = [
            "123456789012345678901234567890", "-123456789012345678901234567890", "9223372036854775808", "-9223372036854775809",
            "18446744073709551616", "1e400", "-1e400", "1e-400", "1.7976931348623157e309", "4.9e-325", "-0", "-0.0", "0e0",
            "1E+2", "1.000000000000000000000000000001", String(repeating: "9", count: 1_000), String(repeating: "7", count: 100_000),
            "1e" + String(repeating: "9", count: 1_000), "0." + String(repeating: "0", count: 10_000) + "1",
        ]
        for literal in ids {
            add("a huge id \(literal.prefix(30)) is echoed", #"{"id":\#(literal),"method":"nope"}"#,
                .error("methodNotFound", id: try! JSONParser.parse(literal)))
        }
        let values = [
            "1e999999", "-1e999999", "1e-999999", "123456789012345678901234567890", "9223372036854775808",
            "-9223372036854775809", "1.5", "1.0000000000000000001", String(repeating: "9", count: 100_000),
            "1" + String(repeating: "0", count: 5_000), "1e" + String(repeating: "9", count: 10_000), "-1e" + String(repeating: "9", count: 10_000),
        ]
        for literal in values {
            request("a huge limit \(literal.prefix(30))", method: #""reports.list""#, params: #"{"limit":\#(literal)}"#, kind: "invalidParams")
            request("a huge timeout \(literal.prefix(30))", method: #""location.current""#, params: #"{"timeoutMs":\#(literal)}"#, kind: "invalidParams")
        }
    }

    private mutating func addEnvelopes() {
        for scalar in ["42", "-1", "0", "1e999", "\"x\"", "\"\"", "true", "false", "null", "\"{\\\"id\\\":1}\""] {
            add("a scalar \(scalar)", scalar, .error("invalidRequest", id: .null))
        }
        for value in ["true", "false", "null", "[]", "[1]", "{}", #"{"a":1}"#, #"["c"]"#] {
            add("id \(value) with a known method", #"{"id":\#(value),"method":"daemon.info"}"#, .error("invalidRequest", id: .null))
            add("id \(value) with an unknown method", #"{"id":\#(value),"method":"nope"}"#, .error("invalidRequest", id: .null))
            add("id \(value) without a method", #"{"id":\#(value)}"#, .error("invalidRequest", id: .null))
        }
        for value in ["1", "1.5", "true", "false", "null", "[]", #"["daemon.info"]"#, "{}", #"{"name":"daemon.info"}"#] {
            request("method \(value)", method: value, params: nil, kind: "invalidRequest", notification: false)
            // Without an id and a string method it is no notification: it is answered, id null.
            add("method \(value) without an id", #"{"method":\#(value)}"#, .error("invalidRequest", id: .null))
        }
        for value in [#""1.0""#, #""2""#, "2", "2.0", "null", "true", "[]", "{}", #""2.0 ""#, #""""#, #"["2.0"]"#] {
            let id = nextID()
            add("jsonrpc \(value)", #"{"jsonrpc":\#(value),"id":"\#(id)","method":"daemon.info"}"#, .error("invalidRequest", id: .string(id)))
            add("jsonrpc \(value) in a notification", #"{"jsonrpc":\#(value),"method":"daemon.info"}"#, .nothing)
        }
        for text in ["{}", #"{"id":1}"#, #"{"jsonrpc":"2.0"}"#, #"{"params":{}}"#, #"{"id":"x","params":{}}"#] {
            add("no method: \(text)", text, .error("invalidRequest", id: try! JSONParser.parse(text)["id"] ?? .null))
        }
        for member in ["extra", "ID", "Method", "Params", "jsonrpc2", "result", "error", "", "id ", "\\u0069d2"] {
            let id = nextID()
            add("unknown member \(member)", #"{"id":"\#(id)","method":"daemon.info","\#(member)":1}"#, .error("invalidRequest", id: .string(id)))
            add("unknown member \(member) in a notification", #"{"method":"daemon.info","\#(member)":1}"#, .nothing)
        }
        for value in ["1", "\"x\"", "true", "false", "[]", "[1]", #"[{"flowId":"x"}]"#, #"["flowId","x"]"#, "0", "\"\""] {
            request("params \(value)", method: #""flow.get""#, params: value, kind: "invalidParams")
        }
    }

    private mutating func addUnknownMethods() {
        let names = [
            "", " ", "nope", "Daemon.info", "DAEMON.INFO", "daemon.info ", " daemon.info", "daemon", "daemon.", ".info", "daemon..info",
            "daemon/info", "daemon_info", "daemonInfo", "daemon.info.", "flow", "flow.", "flow.explode", "flow.Start", "flow.start\\n",
            "rpc.Discover", "rpc.discover.", "system.listMethods", "reports.delete", "reports", "location", "species", "flow.applyLocation",
            "__proto__", "constructor", "toString", "../../etc/passwd", "%s%s%s%n", "'; DROP TABLE reports; --", "\\u0064aemon.info.x",
            String(repeating: "m", count: 10_000),
        ]
        for name in names {
            request("unknown method \(name.prefix(30))", method: Self.quoted(name), params: nil, kind: "methodNotFound")
            request("unknown method \(name.prefix(30)) with params", method: Self.quoted(name), params: #"{"flowId":"x"}"#, kind: "methodNotFound", notification: false)
        }
    }

    private enum ParameterType {
        case requiredString, optionalString, locale, int(ClosedRange<Int>), requiredObject

        var isRequiredString: Bool {
            if case .requiredString = self { return true }
            return false
        }
    }

    private mutating func addParameters() {
        let flow = #""flowId":"\#(flowID)""#
        // Every method, its parameters, and the members that make the others valid.
        let methods: [(String, [(String, ParameterType)], [String: String])] = [
            ("daemon.info", [], [:]),
            ("species.list", [("locale", .locale)], [:]),
            ("flow.start", [("locale", .locale)], [:]),
            ("flow.get", [("flowId", .requiredString)], [:]),
            ("flow.update", [("flowId", .requiredString), ("values", .requiredObject)], ["flowId": flow, "values": #""values":{}"#]),
            ("flow.continue", [("flowId", .requiredString)], [:]),
            ("flow.back", [("flowId", .requiredString)], [:]),
            ("flow.cancel", [("flowId", .requiredString)], [:]),
            ("flow.requestLocation", [("flowId", .requiredString), ("timeoutMs", .int(1...locationTimeoutMs))], ["flowId": flow]),
            ("flow.dismissAlert", [("flowId", .requiredString)], [:]),
            ("flow.submit", [("flowId", .requiredString)], [:]),
            ("location.current", [("timeoutMs", .int(1...locationTimeoutMs)), ("maxAgeMs", .int(0...3_600_000)), ("locale", .locale)], [:]),
            ("location.status", [], [:]),
            ("reports.list", [("limit", .int(1...maxReportsPage)), ("cursor", .optionalString)], [:]),
            ("reports.get", [("reportId", .requiredString)], [:]),
        ]
        let notString = ["1", "0", "-1", "1.5", "1e999", "true", "false", "[]", #"["x"]"#, "{}", #"{"id":"x"}"#]
        for (method, parameters, others) in methods {
            let m = Self.quoted(method)
            for (name, type) in parameters {
                var wrong: [String]
                switch type {
                case .requiredString: wrong = notString + ["null"]
                case .optionalString: wrong = notString
                case .locale: wrong = notString + [#""de""#, #""""#, #""EN""#, #"" en""#, #""en-US""#, #""pl_PL""#]
                case .int(let range):
                    wrong = [#""1""#, #""""#, "true", "false", "[]", "[1]", "{}", "1.5", "-0.5", "\(range.lowerBound - 1)",
                             "\(range.upperBound + 1)", "\(range.upperBound)1", "-\(range.upperBound)", "1e999", "1e-999"]
                case .requiredObject: wrong = ["1", "\"x\"", "\"{}\"", "true", "false", "[]", "[{}]", "null"]
                }
                for value in wrong {
                    let rest = parameters.map(\.0).filter { $0 != name }.compactMap { others[$0] }
                    let params = "{" + (rest + [#""\#(name)":\#(value)"#]).joined(separator: ",") + "}"
                    request("\(method) \(name) = \(value)", method: m, params: params, kind: "invalidParams")
                }
            }
            // Unknown and misspelt parameters, beside valid ones.
            let valid = parameters.compactMap { others[$0.0] ?? ($0.1.isRequiredString ? #""\#($0.0)":"x""# : nil) }
            for unknown in ["bogus", "flowID", "FlowId", "flow_id", "id", "method", "params", "", "locale ", "timeout"]
            where !parameters.contains(where: { $0.0 == unknown }) {
                let params = "{" + (valid + [#""\#(unknown)":1"#]).joined(separator: ",") + "}"
                request("\(method) unknown parameter \(unknown)", method: m, params: params, kind: "invalidParams")
            }
        }
        request("a cursor never given out", method: #""reports.list""#, params: #"{"cursor":"not-a-cursor"}"#, kind: "invalidParams")
        request("an empty cursor", method: #""reports.list""#, params: #"{"cursor":""}"#, kind: "invalidParams")
        request("a cursor of NULs", method: #""reports.list""#, params: #"{"cursor":"\u0000\u0000"}"#, kind: "invalidParams")
        request("no such flow", method: #""flow.get""#, params: #"{"flowId":"no-such-flow"}"#, kind: "flowNotFound")
        request("an empty flow id", method: #""flow.continue""#, params: #"{"flowId":""}"#, kind: "flowNotFound")
        request("a flow id of 10,000 characters", method: #""flow.back""#,
                params: #"{"flowId":"\#(String(repeating: "f", count: 10_000))"}"#, kind: "flowNotFound")
        request("no such report", method: #""reports.get""#, params: #"{"reportId":"no-such-report"}"#, kind: "reportNotFound")
        request("submit on step chip", method: #""flow.submit""#, params: "{\(flow)}", kind: "wrongStep")
        request("requestLocation on step chip", method: #""flow.requestLocation""#, params: "{\(flow)}", kind: "wrongStep")
    }

    private mutating func addFlowValues() {
        let flow = #""flowId":"\#(flowID)""#
        let update = #""flow.update""#
        for value in ["1", "0", "1.5", "true", "false", "[]", #"["1"]"#, "{}", #"{"data":"x"}"#] {
            request("chipNumber = \(value)", method: update, params: #"{\#(flow),"values":{"chipNumber":\#(value)}}"#, kind: "invalidParams")
        }
        for field in ["photo", "disappearanceDate", "species", "race", "gender", "age", "latitude", "longitude",
                      "additionalDescription", "contactPhone", "contactEmail"] {
            request("\(field) on step chip", method: update, params: #"{\#(flow),"values":{"\#(field)":"x"}}"#, kind: "wrongStep")
            request("\(field) as null on step chip", method: update, params: #"{\#(flow),"values":{"\#(field)":null}}"#, kind: "wrongStep")
        }
        for field in ["chipnumber", "ChipNumber", "chip", "chip_number", "", "__proto__", "values", "flowId"] {
            request("unknown field \(field)", method: update, params: #"{\#(flow),"values":{"\#(field)":"1"}}"#, kind: "invalidParams")
            request("unknown field \(field) beside a good one", method: update,
                    params: #"{\#(flow),"values":{"chipNumber":"1","\#(field)":"1"}}"#, kind: "invalidParams")
        }
    }

    private mutating func addBatches() {
        add("an empty batch", "[]", .error("invalidRequest", id: .null))
        add("an empty batch with blanks", "[ \t ]", .error("invalidRequest", id: .null))
        add("a batch holding an empty batch", "[[]]", .batch(["invalidRequest"]))
        add("a batch of batches", #"[[{"id":1,"method":"daemon.info"}],[]]"#, .batch(["invalidRequest", "invalidRequest"]))
        for scalars in [["1"], ["null"], ["true", "false"], ["\"x\"", "1.5", "{}"], ["[1]", "{\"id\":1}"]] {
            add("a batch of \(scalars.joined(separator: ","))", "[" + scalars.joined(separator: ",") + "]", .batch(scalars.map { _ in "invalidRequest" }))
        }
        add("a mixed batch", #"[1,{"id":"b1","method":"daemon.info"},{"method":"daemon.info"},{"id":"b2","method":"nope"},{"id":"b3","method":"flow.get","params":{"flowId":1}},"x"]"#,
            .batch(["invalidRequest", nil, "methodNotFound", "invalidParams", "invalidRequest"]))
        add("a batch of bad notifications and one request", #"[{"method":"nope"},{"method":"flow.get","params":[]},{"id":"b4","method":"nope"}]"#,
            .batch(["methodNotFound"]))
        add("a batch with bad ids", #"[{"id":true,"method":"daemon.info"},{"id":null,"method":"daemon.info"},{"id":[],"method":"x"}]"#,
            .batch(["invalidRequest", "invalidRequest", "invalidRequest"]))
        add("a batch with a parse error", #"[{"id":1,"method":"daemon.info"},{"id":2,"method":}]"#, Self.parseError)
        add("a batch with a trailing comma", #"[{"id":1,"method":"daemon.info"},]"#, Self.parseError)
        let notification = #"{"method":"nope"}"#
        let failing = (0..<maxBatchSize).map { #"{"id":"f\#($0)","method":"nope"}"# }
        add("a batch of only bad notifications", "[" + Array(repeating: notification, count: 3).joined(separator: ",") + "]", .nothing)
        add("a batch of the most bad notifications", "[" + Array(repeating: notification, count: maxBatchSize).joined(separator: ",") + "]", .nothing)
        add("a batch of the most bad requests", "[" + failing.joined(separator: ",") + "]", .batch(failing.map { _ in "methodNotFound" }))
        let over = maxBatchSize + 1
        let limit = BadLine.Answer.error("limitExceeded", id: .null)
        add("a batch one over the limit", "[" + (0..<over).map { #"{"id":\#($0),"method":"daemon.info"}"# }.joined(separator: ",") + "]", limit)
        add("notifications one over the limit", "[" + Array(repeating: notification, count: over).joined(separator: ",") + "]", limit)
        add("scalars one over the limit", "[" + Array(repeating: "1", count: over).joined(separator: ",") + "]", limit)
        add("a batch ten times the limit", "[" + Array(repeating: "{}", count: maxBatchSize * 10).joined(separator: ",") + "]", limit)
        add("a batch of 100,000 zeros", "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]", limit)
    }

    private mutating func addLineLengths() {
        let max = maxLineBytes
        func padded(_ text: String, to length: Int) -> [UInt8] {
            Array(text.utf8) + Array(repeating: UInt8(ascii: " "), count: length - text.utf8.count)
        }
        let tooLong = BadLine.Answer.error("lineTooLong", id: .null)
        let id1 = nextID(), id2 = nextID(), id3 = nextID()
        add("a bad request of exactly the limit", padded(#"{"id":"\#(id1)","method":"nope"}"#, to: max), .error("methodNotFound", id: .string(id1)))
        add("a bad request of exactly the limit and \\r", padded(#"{"id":"\#(id2)","method":"nope"}"#, to: max) + [0x0D], .error("methodNotFound", id: .string(id2)))
        add("a bad request of exactly the limit, blanks first", Array(repeating: UInt8(ascii: " "), count: max - 30) + padded(#"{"id":"\#(id3)","method":"x"}"#, to: 30),
            .error("methodNotFound", id: .string(id3)))
        add("a notification of exactly the limit", padded(#"{"method":"nope"}"#, to: max), .nothing)
        add("garbage of exactly the limit", Array(repeating: UInt8(ascii: "x"), count: max), Self.parseError)
        add("a string of exactly the limit", [0x22] + Array(repeating: UInt8(ascii: "s"), count: max - 2) + [0x22], .error("invalidRequest", id: .null))
        add("blanks of exactly the limit", Array(repeating: UInt8(ascii: " "), count: max), .nothing)
        for over in [1, 2, 100, max, 3 * max + 7] {
            add("a request \(over) over the limit", padded(#"{"id":"long","method":"daemon.info"}"#, to: max + over), tooLong)
            add("a notification \(over) over the limit", padded(#"{"method":"nope"}"#, to: max + over), tooLong)
            add("garbage \(over) over the limit", Array(repeating: UInt8(ascii: "z"), count: max + over), tooLong)
        }
        add("one over the limit with \\r", padded(#"{"id":"long","method":"nope"}"#, to: max + 1) + [0x0D], tooLong)
        add("blanks one over the limit", Array(repeating: UInt8(ascii: " "), count: max + 1), tooLong)
        add("NULs one over the limit", Array(repeating: 0, count: max + 1), tooLong)
        add("invalid UTF-8 one over the limit", Array(repeating: 0xFF, count: max + 1), tooLong)
    }
}
