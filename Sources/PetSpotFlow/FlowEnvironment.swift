/// What a flow needs from the world, handed in by the daemon so the flow stays a pure value.
public struct FlowEnvironment: Sendable {
    /// "Today" in the daemon's configured time zone.
    public var today: CalendarDate
    public var species: SpeciesCatalog
    /// The largest accepted photo, in decoded bytes.
    public var maxPhotoBytes: Int

    public init(today: CalendarDate, species: SpeciesCatalog, maxPhotoBytes: Int = 10 * 1024 * 1024) {
        self.today = today
        self.species = species
        self.maxPhotoBytes = maxPhotoBytes
    }
}
