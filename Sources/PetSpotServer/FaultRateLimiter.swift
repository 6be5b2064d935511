import PetSpotSystem

/// Decides which fault lines reach the log: the first of a kind at once, then, while the same
/// fault keeps coming, one line per interval that says how many there were. A quiet interval
/// ends the flood: the next one is written at once again. Pure: the time is handed in.
///
/// Keys come from fixed vocabularies (error kind, method, limit), so the table stays small.
struct FaultRateLimiter<Sample: Sendable>: Sendable {
    enum Line {
        /// Write this fault as it is.
        case single(Sample)
        /// `count` faults of one kind were held back; `last` is the latest of them.
        case repeated(last: Sample, count: Int)
    }

    let interval: Duration
    private var windows: [String: Window] = [:]

    /// Since the last line written for a key: when that was, and what came after it.
    private struct Window: Sendable {
        var start: DaemonInstant
        var heldBack = 0
        var last: Sample?
    }

    init(interval: Duration) {
        precondition(interval > .zero, "a zero interval would hold nothing back")
        self.interval = interval
    }

    /// A fault happened: the lines to write now (none while its key is being held back).
    mutating func record(_ key: String, _ sample: Sample, at now: DaemonInstant) -> [Line] {
        var lines = closeWindowIfOver(key, at: now)
        if var window = windows[key] {
            window.heldBack += 1
            window.last = sample
            windows[key] = window
        } else {
            windows[key] = Window(start: now)
            lines.append(.single(sample))
        }
        return lines
    }

    /// The count lines of every window whose interval is over. Call it regularly, so the count
    /// of a flood that stopped is written without waiting for the next fault of its kind.
    mutating func flush(at now: DaemonInstant) -> [Line] {
        windows.keys.sorted().flatMap { closeWindowIfOver($0, at: now) }
    }

    /// The count lines of every window, over or not, and a fresh start: for a stop.
    mutating func drain() -> [Line] {
        defer { windows = [:] }
        return windows.keys.sorted().compactMap { key in
            windows[key].flatMap { window in window.last.map { .repeated(last: $0, count: window.heldBack) } }
        }
    }

    /// Keys with a window open, for tests.
    var openKeys: Set<String> { Set(windows.keys) }

    private mutating func closeWindowIfOver(_ key: String, at now: DaemonInstant) -> [Line] {
        guard let window = windows[key], now.elapsed(since: window.start) >= interval else { return [] }
        guard window.heldBack > 0, let last = window.last else {
            windows[key] = nil
            return []
        }
        // Still flooding: the next interval starts now, and its faults are held back too.
        windows[key] = Window(start: now)
        return [.repeated(last: last, count: window.heldBack)]
    }
}

extension FaultRateLimiter.Line: Equatable where Sample: Equatable {}
