import PetSpotFlow
import PetSpotViews
import Testing

@testable import PetSpotPoster

@Suite("what a poster says")
struct PosterContentTests {
    static let document = PosterDocument(
        id: "r1", species: "guinea-pig", race: "Abisyńska", gender: .male, age: 2,
        disappearanceDate: CalendarDate(year: 2026, month: 5, day: 1),
        lastSeen: .init(latitude: "52.22968", longitude: "21.01223"), description: "Rudy, biała łatka",
        contact: .init(phone: "+••••••••789", email: "j•••@example.org"), chipNumber: "616093900012345")

    @Test("in Polish, with the flow's words: labels, gender, age, the date in the genitive, the species' name")
    func polish() throws {
        let content = try PosterContent(Self.document, options: PosterOptions(locale: .pl))
        #expect(content.headline == "ZAGINIONE ZWIERZĘ")
        #expect(content.species == "ŚWINKA MORSKA")
        #expect(content.facts == [
            .init("Rasa zwierzęcia", "Abisyńska"), .init("Płeć", "Samiec"), .init("Wiek zwierzęcia", "2 lata"),
            .init("Data zaginięcia", "1 maja 2026"), .init("Ostatnio widziane", "52.22968, 21.01223"),
        ])
        #expect(content.descriptionTitle == "Opis zwierzęcia")
        #expect(content.contacts == [.init("Numer telefonu", "+••••••••789"), .init("Adres e-mail", "j•••@example.org")])
        #expect(content.qrCode?.payload.uri == "geo:52.22968,21.01223")
        #expect(content.title == "Zaginione zwierzę: Świnka morska")
        #expect(content.photoNotShown == nil)
    }

    @Test("in English; the daemon's species name wins over the built-in one, an unknown id is printed as it is")
    func english() throws {
        let content = try PosterContent(Self.document, options: PosterOptions(locale: .en))
        #expect(content.headline == "MISSING")
        #expect(content.species == "GUINEA PIG")
        #expect(content.facts.map(\.label) == ["Animal race", "Gender", "Animal age", "Date of disappearance", "Last seen"])
        #expect(content.facts[3].value == "1 May 2026")
        let named = PosterDocument(id: "r1", species: "axolotl", speciesName: "Aksolotl meksykański", contact: .init(phone: "123456789", email: nil))
        #expect(try PosterContent(named, options: PosterOptions(locale: .pl)).species == "AKSOLOTL MEKSYKAŃSKI")
        let unknown = PosterDocument(id: "r1", species: "axolotl", contact: .init(phone: "123456789", email: nil))
        #expect(try PosterContent(unknown, options: PosterOptions(locale: .en)).species == "AXOLOTL")
    }

    @Test("the chip only when asked for, formatted as chip readers print it")
    func chip() throws {
        let without = try PosterContent(Self.document, options: PosterOptions(locale: .en))
        #expect(!without.facts.contains { $0.label == "Microchip number" })
        let with = try PosterContent(Self.document, options: PosterOptions(locale: .en, showChip: true))
        #expect(with.facts.contains(.init("Microchip number", "61609-39000-12345")))
    }

    @Test("the QR code: the position by default, none without one, the contact when asked and whole")
    func qrCode() throws {
        let noPosition = PosterDocument(id: "r1", species: "dog", contact: .init(phone: "+48 123-456-789", email: "jan@example.org"))
        #expect(try PosterContent(noPosition, options: PosterOptions(locale: .en)).qrCode == nil)
        #expect(try PosterContent(Self.document, options: PosterOptions(locale: .en, qr: PosterOptions.QRChoice.none)).qrCode == nil)
        #expect(throws: PosterInputError("lastSeen", "is null: there is no position for --qr geo")) {
            try PosterContent(noPosition, options: PosterOptions(locale: .en, qr: .geo))
        }
        let contact = try PosterContent(noPosition, options: PosterOptions(locale: .pl, qr: .contact))
        #expect(contact.qrCode == .init(payload: QRPayload(kind: .tel, uri: "tel:+48123456789"), caption: "Zeskanuj, aby zadzwonić"))
        #expect(throws: PosterInputError.self) { try PosterContent(Self.document, options: PosterOptions(locale: .en, qr: .contact)) }
    }

    @Test("a photo that cannot be decoded here is named by its type")
    func photoNotShown() throws {
        let heic = PosterDocument(id: "r1", species: "cat", contact: .init(phone: "123456789", email: nil), photo: .init(mediaType: "image/heic", bytes: []))
        #expect(try PosterContent(heic, options: PosterOptions(locale: .en)).photoNotShown
            == "This photo (image/heic) cannot be shown here: no decoder for its format is installed.")
    }

    @Test("a description keeps 10 lines; the rest runs on in the last; tabs and CR LF are plain")
    func descriptionLines() {
        #expect(PosterContent.printable("a\r\nb\tc\rd") == "a\nb c\nd")
        let many = (1...14).map(String.init).joined(separator: "\n")
        let printed = PosterContent.printable(many)
        #expect(printed.split(separator: "\n").count == 10)
        #expect(printed.hasSuffix("\n10 11 12 13 14"))
        #expect(PosterContent.printable(String(repeating: "\n", count: 500) + "x").split(separator: "\n", omittingEmptySubsequences: false).count == 10)
    }
}
