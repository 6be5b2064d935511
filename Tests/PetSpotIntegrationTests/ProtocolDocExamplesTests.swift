import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import Testing

/// Replays every example exchange of docs/PROTOCOL.md against a live daemon, so the document
/// cannot drift from what the daemon does.
///
/// In a fenced block, `→ ` starts a request line and `← ` the answer expected for it (`←` alone:
/// no answer, for notifications). In an expected answer, `"$name"` binds a value the daemon
/// chose (a flow id) or, once bound, must equal it; in a request, `"$name"` is replaced by it.
/// `"…"` matches any value; an object with a member `"…": "…"` may have more members than it
/// shows; an array whose last element is `"…"` may have more elements. `→ <N bytes>` sends a
/// line of N bytes. `<!-- example-daemon: FLAGS -->` before a block runs it on a fresh daemon
/// started with those flags; other blocks share one daemon (with `relay.group` root, box `kiosk-7`) and one
/// connection, in order.
@Suite("docs/PROTOCOL.md examples", .serialized)
struct ProtocolDocExamplesTests {
    struct Exchange {
        let request: String
        let expected: String?
        let line: Int
    }

    struct Block {
        let flags: [String]?
        let exchanges: [Exchange]
        /// Shown but not replayed: an answer no live request can bring about on demand.
        let replayed: Bool
    }

    static func blocks() throws -> [Block] {
        let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        var blocks: [Block] = []
        var inBlock = false
        var flags: [String]? = nil
        var pendingFlags: [String]? = nil
        var replayed = true
        var pendingReplayed = true
        var exchanges: [Exchange] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("<!-- not-replayed:") {
                pendingReplayed = false
            } else if line.hasPrefix("<!-- example-daemon:") {
                pendingFlags = line.dropFirst("<!-- example-daemon:".count).replacingOccurrences(of: "-->", with: "")
                    .split(separator: " ").map(String.init)
            } else if line.hasPrefix("```") {
                if inBlock {
                    if !exchanges.isEmpty { blocks.append(Block(flags: flags, exchanges: exchanges, replayed: replayed)) }
                    exchanges = []
                    flags = nil
                } else {
                    flags = pendingFlags
                    pendingFlags = nil
                    replayed = pendingReplayed
                    pendingReplayed = true
                }
                inBlock.toggle()
            } else if inBlock, line.hasPrefix("→ ") {
                exchanges.append(Exchange(request: String(line.dropFirst(2)), expected: nil, line: index + 1))
            } else if inBlock, line.hasPrefix("←"), let last = exchanges.popLast() {
                let answer = line.dropFirst(1).trimmingCharacters(in: .whitespaces)
                exchanges.append(Exchange(request: last.request, expected: answer.isEmpty ? nil : answer, line: last.line))
            }
        }
        return blocks
    }

    @Test("every method and error kind has an example; all but a failing disk or a stop are replayed")
    func coverage() throws {
        let blocks = try Self.blocks()
        let replayed = blocks.filter(\.replayed).flatMap(\.exchanges)
        let requests = replayed.map(\.request).joined(separator: "\n")
        for method in ProtocolMethods.all {
            #expect(requests.contains("\"method\":\"\(method.name)\""), "no replayed example calls \(method.name)")
        }
        let answers = replayed.compactMap(\.expected).joined(separator: "\n")
        let shown = blocks.flatMap(\.exchanges).compactMap(\.expected).joined(separator: "\n")
        let onDemandImpossible: Set<RPCErrorKind> = [.internalError, .storageFailed, .shuttingDown]
        for kind in RPCErrorKind.allCases {
            let text = onDemandImpossible.contains(kind) ? shown : answers
            #expect(text.contains("\"kind\":\"\(kind.rawValue)\""), "no example shows \(kind.rawValue)")
        }
    }

    @Test("every example answers as documented")
    func replay() throws {
        var shared: (DaemonProcess, PetSpotConnection)? = nil
        var bindings: [String: JSONValue] = [:]
        for block in try Self.blocks() where block.replayed {
            let daemon: DaemonProcess
            let conn: PetSpotConnection
            if let flags = block.flags {
                daemon = try DaemonProcess(arguments: flags).start()
                conn = try daemon.connect()
            } else {
                if shared == nil {
                    // The replaying process runs as root: in the relay.* examples it is the relay.
                    let d = try DaemonProcess(arguments: ["--relay-group", "root", "--box-name", "kiosk-7"]).start()
                    shared = (d, try d.connect())
                }
                (daemon, conn) = shared!
            }
            for exchange in block.exchanges {
                try conn.send(Array((substitute(exchange.request, bindings) + "\n").utf8))
                guard let expectedText = exchange.expected else { continue }
                let actual = try #require(try conn.readValue(), "no answer to line \(exchange.line)")
                let expected = try JSONParser.parse(expectedText)
                var problems: [String] = []
                match(expected, actual, path: "", bindings: &bindings, problems: &problems)
                #expect(problems.isEmpty, "docs/PROTOCOL.md line \(exchange.line): \(problems.joined(separator: "; "))\nactual: \(JSONWriter.string(actual))")
            }
            _ = daemon
        }
    }

    private func substitute(_ request: String, _ bindings: [String: JSONValue]) -> String {
        if request.hasPrefix("<"), request.hasSuffix(" bytes>"), let n = Int(request.dropFirst().dropLast(7)) {
            return String(repeating: "x", count: n)
        }
        var text = request
        for (name, value) in bindings {
            text = text.replacingOccurrences(of: "\"$\(name)\"", with: JSONWriter.string(value))
        }
        return text
    }

    private func match(_ expected: JSONValue, _ actual: JSONValue, path: String, bindings: inout [String: JSONValue], problems: inout [String]) {
        switch expected {
        case .string("…"):
            return
        case .string(let s) where s.hasPrefix("$") && s.count > 1:
            let name = String(s.dropFirst())
            if let bound = bindings[name] {
                if bound != actual { problems.append("\(path): expected $\(name) = \(JSONWriter.string(bound)), got \(JSONWriter.string(actual))") }
            } else {
                bindings[name] = actual
            }
        case .object(let e):
            guard case .object(let a) = actual else {
                problems.append("\(path): expected an object, got \(JSONWriter.string(actual))")
                return
            }
            let open = e["…"] != nil
            for member in e where member.key != "…" {
                guard let value = a[member.key] else {
                    problems.append("\(path).\(member.key): missing")
                    continue
                }
                match(member.value, value, path: "\(path).\(member.key)", bindings: &bindings, problems: &problems)
            }
            if !open {
                for key in a.keys where e[key] == nil { problems.append("\(path).\(key): not in the example") }
            }
        case .array(let e):
            guard case .array(let a) = actual else {
                problems.append("\(path): expected an array, got \(JSONWriter.string(actual))")
                return
            }
            let open = e.last == .string("…")
            let shown = open ? Array(e.dropLast()) : e
            if open ? a.count < shown.count : a.count != shown.count {
                problems.append("\(path): \(a.count) elements, the example shows \(shown.count)\(open ? " or more" : "")")
                return
            }
            for (i, item) in shown.enumerated() {
                match(item, a[i], path: "\(path)[\(i)]", bindings: &bindings, problems: &problems)
            }
        default:
            if expected != actual { problems.append("\(path): expected \(JSONWriter.string(expected)), got \(JSONWriter.string(actual))") }
        }
    }
}
