/// Which reports a newest-first board listing takes by their position.
public enum BoardPositionFilter: Sendable, Hashable, CaseIterable {
    /// Those with a position.
    case with
    /// Those without: the ones a nearest-first listing gives after all the others.
    case without
    case any
}
