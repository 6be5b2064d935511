import Testing

@testable import PetSpotPoster

@Suite("the QR code's URI")
struct QRPayloadTests {
    @Test("geo: at the precision given")
    func geo() {
        #expect(QRPayload.geo(.init(latitude: "52.22968", longitude: "21.01223")).uri == "geo:52.22968,21.01223")
        #expect(QRPayload.geo(.init(latitude: "-33.857", longitude: "151.215")).uri == "geo:-33.857,151.215")
    }

    @Test("tel: with the digits and a leading +; the phone before the email")
    func tel() throws {
        #expect(try QRPayload.contact(.init(phone: "+48 (12) 345-67.89", email: "jan@example.org")) == QRPayload(kind: .tel, uri: "tel:+4812345678" + "9"))
        #expect(try QRPayload.contact(.init(phone: "600700800", email: nil)).uri == "tel:600700800")
    }

    @Test("mailto: with RFC 6068's escapes")
    func mailto() throws {
        #expect(try QRPayload.contact(.init(phone: nil, email: "jan.kowalski+psy@example.org")).uri == "mailto:jan.kowalski+psy@example.org")
        #expect(try QRPayload.contact(.init(phone: nil, email: "a%b?c#d&e=f/g@example.org")).uri == "mailto:a%25b%3Fc%23d%26e%3Df%2Fg@example.org")
        #expect(try QRPayload.contact(.init(phone: nil, email: "łucja@example.pl")).uri == "mailto:%C5%82ucja@example.pl")
    }

    @Test("a masked contact is refused, naming the member")
    func masked() {
        #expect(throws: PosterInputError("contact.phone", "is masked (+••••••••789): a QR code of it would reach nobody; leave out --qr contact")) {
            try QRPayload.contact(.init(phone: "+••••••••789", email: "j•••@example.org"))
        }
        #expect((try? QRPayload.contact(.init(phone: nil, email: "j•••@example.org"))) == nil)
    }
}
