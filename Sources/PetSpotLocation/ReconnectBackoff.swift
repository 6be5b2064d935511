/// The waits of the gpsd watch between connection attempts: `initial` first, each one twice the
/// last up to `longest`, and `initial` again once gpsd has sent something. Pure: the watch does
/// the waiting (on its own thread, where a stop can wake it).
struct ReconnectBackoff: Sendable, Equatable {
    let initial: Duration
    let longest: Duration
    private var upcoming: Duration

    init(initial: Duration, longest: Duration) {
        self.initial = initial
        self.longest = longest
        upcoming = initial
    }

    /// The wait before the next attempt.
    mutating func next() -> Duration {
        defer { upcoming = min(upcoming * 2, longest) }
        return upcoming
    }

    /// gpsd answered: the next loss starts from the shortest wait again.
    mutating func reset() {
        upcoming = initial
    }
}
