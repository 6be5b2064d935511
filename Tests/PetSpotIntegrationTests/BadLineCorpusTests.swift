import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The whole corpus of bad lines on one connection to one daemon: each bad line is followed by
/// a probe that must be answered, so a crash, a closed connection or a stuck one shows at the
/// line that caused it.
@Suite("A corpus of bad lines, each followed by a request that must be answered", .serialized)
struct BadLineCorpusTests {
    /// Small enough to send lines past it quickly; large enough for nesting to 100,000.
    static let maxLineBytes = 1_048_576
    /// Lines sent before their answers are read; the answers of one chunk stay far below
    /// `limits.maxPendingOutputBytes`, so the daemon never stops reading while we write.
    static let chunk = 64

    @Test("every bad line gets the documented answer or none, and the connection goes on")
    func corpus() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxLineBytes=\(Self.maxLineBytes)"]).start()
        let conn = try daemon.servedConnection()
        let info = try conn.result("daemon.info")
        let limit = { (name: String) throws -> Int in try #require(Self.int(info[path: "limits", name]), "limits.\(name)") }
        let status = try conn.result("location.status")
        let flow = try conn.result("flow.start")
        let flowID = try #require(flow[path: "flow", "id"]?.stringValue)
        let corpus = BadLineCorpus(
            maxLineBytes: try limit("maxLineBytes"), maxBatchSize: try limit("maxBatchSize"), maxJSONDepth: try limit("maxJSONDepth"),
            maxReportsPage: try limit("maxReportsPage"), locationTimeoutMs: try #require(Self.int(status["timeoutMs"])),
            flowID: flowID)
        let lines = corpus.lines
        #expect(Set(lines.map(\.bytes)).count == lines.count)
        #expect(lines.count >= 1_000)

        let pid = try #require(daemon.process?.processIdentifier)
        let rssBefore = try Self.residentKiB(pid)
        let bytesSent = lines.reduce(0) { $0 + $1.bytes.count + 1 }
        let clock = ContinuousClock()
        let started = clock.now
        var mismatches: [String] = []
        var index = 0
        while index < lines.count {
            let batch = lines[index..<min(index + Self.chunk, lines.count)]
            var out: [UInt8] = []
            for (offset, line) in zip(batch.indices, batch) {
                out += line.bytes + [0x0A]
                out += Array(#"{"id":"probe-\#(offset)","method":"daemon.info"}"#.utf8) + [0x0A]
            }
            try conn.send(out)
            for (offset, line) in zip(batch.indices, batch) {
                var answers: [JSONValue] = []
                while true {
                    guard let raw = try conn.readLine() else {
                        Issue.record("the daemon closed the connection after line \(offset) (\(line.name))\n\(daemon.log.suffix(2_000))")
                        return
                    }
                    let answer = try JSONParser.parse(raw)
                    if answer["id"] == .string("probe-\(offset)") {
                        if answer[path: "result", "name"] != "petspotd" {
                            mismatches.append("\(offset) \(line.name): the probe after it failed: \(JSONWriter.string(answer))")
                        }
                        break
                    }
                    answers.append(answer)
                }
                if let problem = Self.check(answers, against: line.answer) {
                    mismatches.append("\(offset) \(line.name): \(problem)")
                }
            }
            index = batch.endIndex
        }
        let elapsed = clock.now - started
        let rssAfter = try Self.residentKiB(pid)

        #expect(mismatches.isEmpty, "\(mismatches.count) lines answered wrongly:\n\(mismatches.prefix(30).joined(separator: "\n"))")
        // No bad line, notification included, changed the flow the corpus aimed at.
        let after = try conn.result("flow.get", ["flowId": .string(flowID)])
        #expect(after[path: "flow", "state"] == "active")
        #expect(after[path: "flow", "step"] == "chip")
        #expect(after[path: "flow", "values", "chipNumber"] == .null)
        #expect(daemon.process?.isRunning == true)
        // A sanity bound, not a target: a leak per line would be far above it. AddressSanitizer
        // holds freed memory back in quarantine, so under it LeakSanitizer is the judge instead.
        if !Sanitizer.isActive {
            #expect(rssAfter - rssBefore < 64 * 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        }
        print("""
            bad-line corpus: \(lines.count) distinct lines (\(bytesSent) bytes) and as many probes on one connection, \
            maxLineBytes \(Self.maxLineBytes), in \(elapsed); daemon VmRSS \(rssBefore) KiB before, \(rssAfter) KiB after
            """)
    }

    /// Nil when `answers` (the lines between the bad line and its probe's answer) are what it
    /// must get; otherwise what is wrong.
    static func check(_ answers: [JSONValue], against expected: BadLine.Answer) -> String? {
        let shown = answers.map { String(JSONWriter.string($0).prefix(300)) }.joined(separator: " | ")
        switch expected {
        case .nothing:
            return answers.isEmpty ? nil : "expected no answer, got \(shown)"
        case .error(let kind, let id):
            guard answers.count == 1, let answer = answers.first else { return "expected one \(kind) answer, got \(answers.count): \(shown)" }
            guard answer.errorKind == kind else { return "expected \(kind), got \(shown)" }
            guard answer["id"] == id else { return "expected id \(JSONWriter.string(id)), got \(shown)" }
            guard answer[path: "error", "message"]?.stringValue?.isEmpty == false else { return "no message: \(shown)" }
            return nil
        case .batch(let kinds):
            guard answers.count == 1, let items = answers.first?.arrayValue else { return "expected one array answer, got \(shown)" }
            let got = items.map { $0.errorKind }
            return got == kinds ? nil : "expected \(kinds.map { $0 ?? "result" }), got \(got.map { $0 ?? "result" })"
        }
    }

    static func int(_ value: JSONValue?) -> Int? {
        if case .number(let number)? = value { return number.exactInt }
        return nil
    }

    /// The daemon's resident memory from /proc, in KiB.
    static func residentKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        else { throw TimedOut(description: "no VmRSS in /proc/\(pid)/status") }
        return kib
    }
}
