/// What a poster is written as.
public enum PosterFormat: Sendable, Equatable {
    /// One page, the fonts and the photo's JPEG embedded: what printers take.
    case pdf
    /// A picture of the page at `dpi` pixels per inch.
    case png(dpi: Double)
}
