import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

/// The daemon tells users apart by the socket peer's uid; CI runs as root, so the second user
/// is `nobody`, run through setpriv.
@Suite("Two users cannot see each other's flows or reports", .serialized)
struct UsersTests {
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func isolation() throws {
        let daemon = try DaemonProcess().start()
        let root = try daemon.connect()
        let (flowID, submit) = try fileReport(root)
        let reportID = submit[path: "report", "id"]!.stringValue!
        let openFlow = try root.result("flow.start")[path: "flow", "id"]!.stringValue!

        func asNobody(_ method: String, _ params: String) throws -> (status: Int32, stdout: String, stderr: String) {
            try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                Paths.petspot, "call", "--socket", daemon.socketPath, method, params])
        }
        for (method, params) in [
            ("flow.get", #"{"flowId":"\#(openFlow)"}"#),
            ("flow.update", #"{"flowId":"\#(openFlow)","values":{"chipNumber":"1"}}"#),
            ("flow.cancel", #"{"flowId":"\#(openFlow)"}"#),
            ("flow.submit", #"{"flowId":"\#(flowID)"}"#),
        ] {
            let result = try asNobody(method, params)
            #expect(result.status == 1, "\(method): \(result)")
            #expect(result.stdout.contains("\"flowNotFound\""), "\(method): \(result.stdout)")
        }
        let report = try asNobody("reports.get", #"{"reportId":"\#(reportID)"}"#)
        #expect(report.status == 1)
        #expect(report.stdout.contains("\"reportNotFound\""))
        let list = try asNobody("reports.list", "{}")
        #expect(list.status == 0)
        #expect(try JSONParser.parse(list.stdout)["reports"] == [])
        // Root's cursor is opaque (it names root's own report, not a count of all reports)
        // and is refused in nobody's hands.
        _ = try fileReport(root)
        let page = try root.result("reports.list", ["limit": 1])
        let cursor = try #require(page["cursor"]?.stringValue)
        #expect(cursor == page["reports"]?.arrayValue?.first?["id"]?.stringValue)
        let foreign = try asNobody("reports.list", #"{"cursor":"\#(cursor)"}"#)
        #expect(foreign.status == 1, "\(foreign)")
        #expect(foreign.stdout.contains("\"invalidParams\""), "\(foreign.stdout)")
        // Nobody's own flow works, and root still owns its open flow.
        let own = try asNobody("flow.start", "{}")
        #expect(own.status == 0, "\(own)")
        #expect(try root.result("flow.get", ["flowId": .string(openFlow)])[path: "flow", "state"] == "active")
    }
}
