import ArgumentParser
import PetSpotClient
import PetSpotProtocol

/// `petspot poster`: a poster of one of the caller's reports, with the owner's whole contact.
struct PosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poster",
        abstract: "Make a poster of one of your missing-pet reports to print and pin up.",
        discussion: """
            Fetches the report and its photo from petspotd and hands them to petspot-poster \
            (a package of its own), which writes a one-page PDF: "MISSING" and the species in \
            large type, the photo, the animal, when and where it was last seen with a QR code \
            of the place, and your contact as you gave it. The microchip number is printed only \
            with --chip. Only a missing report makes a poster: one found, withdrawn or expired \
            would send people looking for nothing (renew an expired one first).

            Examples:
              petspot poster 3f2a0c1e-…                         missing-3f2a0c1e-….pdf
              petspot poster 3f2a0c1e-… --locale pl --png       in Polish, as a picture
              petspot poster 3f2a0c1e-… --print --printer Kiosk straight to the printer

            Exit codes as petspot-poster's (65: the report cannot make a poster, e.g. it has no \
            contact left after an erase), or petspot's own.
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The report's id (see petspot reports list).", completion: .custom(ReportsCommand.completeReportIDs))
    var id: String

    @OptionGroup var poster: PosterArguments

    func run() throws {
        let conn = connection.connect()
        let report = conn.callOrExit(ReportsGet.self, ReportsGet.Params(reportId: id)).report
        guard report.status == .missing, !report.erased else {
            let hint = report.status == .expired && !report.erased ? " (petspot reports renew \(report.id) makes it missing again)" : ""
            fail("petspot: report \(report.id) is \(report.erased ? "erased" : report.status.rawValue): no poster for a pet nobody is looking for\(hint)",
                 code: ExitStatus.failure)
        }
        let hasPhoto = report.values["photo"].map { !$0.isNull } ?? false
        let photo = hasPhoto ? conn.callOrExit(ReportsPhoto.self, ReportsPhoto.Params(reportId: id)) : nil
        poster.makePoster(conn, species: report.values["species"]?.stringValue) { locale, speciesName in
            PosterInput.document(report: report, photo: photo, locale: locale, speciesName: speciesName)
        }
    }
}
