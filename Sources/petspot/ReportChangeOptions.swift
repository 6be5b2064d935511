import ArgumentParser
import PetSpotClient
import PetSpotProtocol

/// What every command that changes one report takes: the socket, the report's id and --json;
/// and how it ends: the report as it is after the change, or the daemon's error (exit 1).
struct ReportChangeOptions: ParsableArguments {
    @OptionGroup var connection: SocketOption

    @Argument(help: "The report's id (see petspot reports list).", completion: .custom(ReportsCommand.completeReportIDs))
    var id: String

    @Flag(help: "Print the report after the change as JSON, as petspotd gives it.")
    var json = false

    /// Calls `method` and prints the report it answers as `reports show` does.
    func apply<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) where M.Result == ReportAnswer {
        let conn = connection.connect()
        show(conn.callOrExit(method, params).report, names: conn)
    }

    /// `reports.close` with `outcome`.
    func close(_ outcome: ReportsClose.Outcome) {
        apply(ReportsClose.self, ReportsClose.Params(reportId: id, outcome: outcome))
    }

    /// The report after the change, as `reports show` prints it (species named by `daemon`).
    func show(_ report: ReportView, names daemon: DaemonCalling) {
        ReportsShowCommand.show(report, names: daemon, json: json)
    }
}
