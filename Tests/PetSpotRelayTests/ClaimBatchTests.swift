import PetSpotClient
import PetSpotJSON
import PetSpotRelay
import PetSpotText
import Testing

@Suite("Reading relay.claim's answer")
struct ClaimBatchTests {
    @Test("reports with and without a photo; the delivery member is not carried centrally, members this version does not know are")
    func reads() throws {
        let result = try JSONParser.parse(Array("""
            {"reports":[
              {"report":{"id":"r1","flowId":"f1","submittedAt":"2026-11-21T13:07:27Z","status":"missing","version":1,"updatedAt":"2026-11-21T13:07:27Z",
                         "expiresAt":"2027-02-19T13:07:27Z","erased":false,"values":{"species":"cat"},"delivery":{"state":"pending"},"origin":"box-7"},
               "ownerUid":1000,"photo":null},
              {"report":{"id":"r2","flowId":"f2","submittedAt":"2026-11-21T13:08:00Z","status":"found","version":4,"updatedAt":"2026-11-22T10:00:00Z",
                         "expiresAt":null,"erased":false,"values":{},"delivery":{"state":"delivered","deliveredAt":"2026-11-21T13:09:00Z"}},
               "ownerUid":1000,"photo":{"mediaType":"image/png","sha256":"ab","data":"iVBO"}}],
             "claimTimeoutSeconds":60,"pending":7}
            """.utf8))
        let batch = try ClaimBatch(result: result)
        #expect(batch.pending == 7)
        #expect(batch.reports.map(\.id) == ["r1", "r2"])
        #expect(batch.reports[0].photo == nil)
        #expect(batch.reports[0].report["delivery"] == nil)
        #expect(batch.reports[0].report["values"] == ["species": "cat"])
        // A member a newer daemon adds reaches the central copy too.
        #expect(batch.reports[0].report["origin"] == "box-7")
        #expect(batch.reports[1].photo == ClaimedReport.Photo(mediaType: "image/png", sha256: "ab", base64: "iVBO"))
        #expect(batch.reports[1].submittedAt == "2026-11-21T13:08:00Z")
        #expect(batch.reports.map(\.version) == [1, 4])
        #expect(batch.reports.map(\.status) == [.missing, .found])
        #expect(batch.reports[1].updatedAt == "2026-11-22T10:00:00Z" && !batch.reports[1].erased)
        #expect(batch.reports[1].report["status"] == "found" && batch.reports[1].report["version"] == 4)
    }

    @Test("an erased report keeps centrally only what erasure keeps, whatever the daemon sent: no photo, no personal value, no member this version does not know")
    func erasedReport() throws {
        let result = try JSONParser.parse(Array("""
            {"reports":[
              {"report":{"id":"r1","flowId":"f1","submittedAt":"2026-11-21T13:07:27Z","status":"withdrawn","version":3,"updatedAt":"2026-11-22T10:00:00Z",
                         "expiresAt":null,"erased":true,"values":{"species":"cat","disappearanceDate":"2026-11-20","contactEmail":"owner@example.org","chipNumber":"616091234567890"},
                         "delivery":{"state":"pending"},"ownerNote":"call after 6"},
               "ownerUid":1000,"photo":{"mediaType":"image/png","sha256":"ab","data":"iVBO"}}],
             "claimTimeoutSeconds":60,"pending":1}
            """.utf8))
        let report = try #require(try ClaimBatch(result: result).reports.first)
        #expect(report.erased && report.version == 3 && report.status == .withdrawn)
        #expect(report.photo == nil)
        #expect(report.report["values"] == ["species": "cat", "disappearanceDate": "2026-11-20", "contactEmail": nil, "chipNumber": nil])
        #expect(report.report["ownerNote"] == nil)
        #expect(report.report["erased"] == true && report.report["updatedAt"] == "2026-11-22T10:00:00Z")
    }

    @Test("answers that break the contract are refused, naming the member at fault", arguments: [
        (#"{"claimTimeoutSeconds":60,"pending":0}"#, "relay.claim's answer: result.reports is missing"),
        (#"{"reports":[],"claimTimeoutSeconds":60}"#, "relay.claim's answer: result.pending is missing"),
        (#"{"reports":[],"claimTimeoutSeconds":60,"pending":"0"}"#, "relay.claim's answer: result.pending must be a whole number, not a string"),
        (#"{"reports":[{"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#, "relay.claim's answer: result.reports[0].report is missing"),
        (#"{"reports":[{"report":{"submittedAt":"x"},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         "relay.claim's answer: result.reports[0].report.id is missing"),
        (#"{"reports":[{"report":{"id":"","flowId":"f","submittedAt":"x","status":"missing","version":1,"updatedAt":"x","expiresAt":null,"erased":false,"values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         "a claimed report has an empty id"),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         "relay.claim's answer: result.reports[0].report.submittedAt is missing"),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","submittedAt":"x","values":{},"delivery":{"state":"sent"}},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         #"relay.claim's answer: result.reports[0].report.delivery.state must be "pending" or "delivered", not "sent""#),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","submittedAt":"x","status":"missing","version":1,"updatedAt":"x","expiresAt":null,"erased":false,"values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":{"mediaType":"image/png","sha256":"ab"}}],"claimTimeoutSeconds":60,"pending":0}"#,
         "relay.claim's answer: result.reports[0].photo.data is missing"),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","submittedAt":"x","values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":"abc"}],"claimTimeoutSeconds":60,"pending":0}"#,
         "relay.claim's answer: result.reports[0].photo must be an object, not a string"),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","submittedAt":"x","values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         "relay.claim's answer: result.reports[0].report.status is missing"),
        (#"{"reports":[{"report":{"id":"r","flowId":"f","submittedAt":"x","status":"missing","version":0,"updatedAt":"x","expiresAt":null,"erased":false,"values":{},"delivery":{"state":"pending"}},"ownerUid":1,"photo":null}],"claimTimeoutSeconds":60,"pending":0}"#,
         #"claimed report "r" has version 0; versions start at 1"#),
    ])
    func refused(_ text: String, _ message: String) throws {
        let result = try JSONParser.parse(Array(text.utf8))
        #expect(throws: DaemonAnswerError(message)) { try ClaimBatch(result: result) }
    }

    @Test("relay.status's answer and the state file round trip")
    func statusAndState() throws {
        let status = try RelayDaemonStatus(json: try JSONParser.parse(Array(#"{"pending":3,"claimed":1,"delivered":9,"lastDeliveredAt":null}"#.utf8)))
        #expect(status.pending == 3 && status.claimed == 1 && status.delivered == 9 && status.lastDeliveredAt == nil)
        var state = RelayState(box: "a", pid: 42, startedAt: "2026-11-21T13:00:00Z")
        state.postgres = .unreachable(reason: "cannot reach PostgreSQL at h:5432: connection refused", kind: "unreachable")
        state.daemon = .reachable
        state.delivered = 5
        state.lastDeliveryAt = "2026-11-21T13:01:00Z"
        state.pending = 2
        #expect(try RelayState(json: try JSONParser.parse(Array(JSONWriter.string(state.json).utf8))) == state)
        #expect(state.currentError == "PostgreSQL: cannot reach PostgreSQL at h:5432: connection refused")
        let report = RelayStatusReport(daemon: .success(status), state: .success(state))
        #expect(report.outcome == .relayError)
        #expect(report.text.contains("pending: 3"))
        #expect(RelayStatusReport(daemon: .failure(.init("no")), state: .success(state)).outcome == .daemonUnavailable)
        #expect(RelayStatusReport(daemon: .success(status), state: .success(nil)).outcome == .noState)
        state.postgres = .reachable
        #expect(RelayStatusReport(daemon: .success(status), state: .success(state)).outcome == .healthy)
    }

    @Test("--status shows control characters from PostgreSQL's errors or an edited state file visibly, never raw")
    func statusEscapesControls() throws {
        var state = RelayState(box: "box\u{1B}]0;owned\u{07}", pid: 42, startedAt: "2026-11-21T13:00:00Z")
        state.postgres = .unreachable(reason: "ERROR: \u{9B}2J\u{08}\r\nfake line\u{202E}", kind: "unreachable")
        let text = RelayStatusReport(daemon: .failure(.init("no")), state: .success(state)).text
        #expect(!text.unicodeScalars.contains { VisibleText.isShownEscaped($0) && $0 != "\n" }, "\(text.debugDescription)")
        #expect(text.contains(#"box: box\u{1B}]0;owned\u{7};"#), "\(text)")
        #expect(text.contains(#"ERROR: \u{9B}2J\u{8}\r\nfake line\u{202E}"#), "\(text)")
    }
}
