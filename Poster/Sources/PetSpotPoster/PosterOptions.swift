import PetSpotViews

/// What the person printing chooses, beside the document itself.
public struct PosterOptions: Sendable, Equatable {
    /// What the QR code holds.
    public enum QRChoice: String, Sendable, CaseIterable {
        /// The last-seen position as a geo: URI.
        case geo
        /// The contact as a tel: or mailto: URI.
        case contact
        /// No QR code.
        case none
    }

    public var locale: FlowLocale
    /// Print the microchip number: off by default, since a chip number on a public wall helps
    /// a thief pass the animal off as their own more than it helps a finder (any vet reads it).
    public var showChip: Bool
    /// nil: the position when there is one, else no code.
    public var qr: QRChoice?

    public init(locale: FlowLocale, showChip: Bool = false, qr: QRChoice? = nil) {
        self.locale = locale
        self.showChip = showChip
        self.qr = qr
    }
}
