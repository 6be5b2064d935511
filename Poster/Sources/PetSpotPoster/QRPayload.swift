/// The text of the poster's QR code: where the animal was last seen, or how to reach the owner.
public struct QRPayload: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// RFC 5870: phones open it in their map app.
        case geo
        /// RFC 3966: phones offer to call.
        case tel
        /// RFC 6068: phones open a new email.
        case mailto
    }

    public let kind: Kind
    /// The URI, also printed under the code.
    public let uri: String

    /// `geo:52.22968,21.01223`, at the precision given.
    public static func geo(_ position: PosterDocument.Position) -> QRPayload {
        QRPayload(kind: .geo, uri: "geo:\(position.latitude),\(position.longitude)")
    }

    /// The first of phone and email there is: `tel:+48123456789` (the digits and a leading `+`),
    /// else `mailto:` the address. A masked contact (the public's `+••••••••789`) reaches
    /// nobody and is refused.
    public static func contact(_ contact: PosterDocument.Contact) throws(PosterInputError) -> QRPayload {
        if let phone = contact.phone {
            guard !phone.contains(maskCharacter) else {
                throw PosterInputError("contact.phone", "is masked (\(phone)): a QR code of it would reach nobody; leave out --qr contact")
            }
            let digits = phone.unicodeScalars.filter { ("0"..."9").contains($0) }
            guard !digits.isEmpty else { throw PosterInputError("contact.phone", "has no digits: \(phone)") }
            let plus = phone.unicodeScalars.first == "+" ? "+" : ""
            return QRPayload(kind: .tel, uri: "tel:" + plus + String(String.UnicodeScalarView(digits)))
        }
        guard let email = contact.email else {
            throw PosterInputError("contact", "has neither a phone nor an email for --qr contact")
        }
        guard !email.contains(maskCharacter) else {
            throw PosterInputError("contact.email", "is masked (\(email)): a QR code of it would reach nobody; leave out --qr contact")
        }
        return QRPayload(kind: .mailto, uri: "mailto:" + percentEncoded(email))
    }

    /// What the daemon hides a masked contact's characters with (U+2022 BULLET).
    static let maskCharacter: Character = "•"

    /// RFC 6068's `addr-spec` characters as they are (unreserved and `some-delims`), every
    /// other byte of the UTF-8 as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*+,;:@".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if kept.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
