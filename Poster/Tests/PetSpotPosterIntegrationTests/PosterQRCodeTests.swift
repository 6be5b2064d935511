import Foundation
import PetSpotJSON
import Testing

@Suite("the QR code, read back from the printed page", .serialized)
struct PosterQRCodeTests {
    private func codes(_ document: JSONValue, _ arguments: [String] = []) throws -> [String] {
        let poster = try PosterRun.make(document, arguments)
        try #require(poster.succeeded, "\(poster.result)")
        return try PDFTools.barcodes(PDFTools.rasterize(poster.output))
    }

    @Test("the last-seen position as a geo: URI at the precision given, its text printed under it")
    func geo() throws {
        #expect(try codes(Documents.publicAnimal()) == ["geo:52.22968,21.01223"])
        // The public's position has 3 decimals: so has the URI.
        let rounded = Documents.publicAnimal(["lastSeen": ["latitude": Documents.number("-33.857"), "longitude": Documents.number("151.215")]])
        #expect(try codes(rounded) == ["geo:-33.857,151.215"])
        let poster = try PosterRun.make(rounded)
        #expect(try PDFTools.text(poster.output).contains("geo:-33.857,151.215"))
    }

    @Test("--qr contact: tel: for a phone, mailto: for an email alone")
    func contact() throws {
        #expect(try codes(Documents.ownReport(), ["--qr", "contact"]) == ["tel:+48123456789"])
        let emailOnly = Documents.ownReport(["contact": ["phone": .null, "email": "łucja+psy@example.org"]])
        #expect(try codes(emailOnly, ["--qr", "contact"]) == ["mailto:%C5%82ucja+psy@example.org"])
        let poster = try PosterRun.make(emailOnly, ["--qr", "contact", "--locale", "en"])
        // Under the code, wrapped to its width.
        let text = try PDFTools.text(poster.output).filter { !$0.isWhitespace }
        #expect(text.contains("mailto:%C5%82ucja+psy@example.org") && text.contains("Scantowriteanemail"), "\(text)")
        #expect(try codes(Documents.ownReport(), ["--qr", "none"]).isEmpty)
    }

    @Test("a masked contact makes no QR code: refused with exit 65, naming the member")
    func masked() throws {
        let poster = try PosterRun.make(Documents.publicAnimal(), ["--qr", "contact"])
        #expect(poster.result.status == 65)
        #expect(poster.result.stderr.contains("contact.phone: is masked"), "\(poster.result)")
        #expect(!FileManager.default.fileExists(atPath: poster.output))
    }
}
