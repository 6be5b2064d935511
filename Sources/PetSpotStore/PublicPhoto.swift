/// What the public may be shown of a listed report's photo.
public enum PublicPhoto: Sendable, Hashable {
    /// Its metadata-free copy, described: made from the stored photo on the way out, by the
    /// same rules that described it.
    case cleaned(PhotoDescription)
    /// Nothing: the report has no photo, or one whose format cannot be cleaned.
    case withheld
    /// Stored before the board, not described yet: the daemon cleans it and says what it is
    /// (`ReportStore.describePublicPhoto`). Until then the public is shown no photo.
    case notYetDescribed
}
