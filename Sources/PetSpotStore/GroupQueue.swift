/// A write that may share one transaction (and one fsync) with others: a submit, a change.
protocol GroupMember: Sendable {
    /// What it adds to a group's transaction, roughly: its photo and values.
    var bytes: Int { get }
}

/// Writes waiting for the next turn of the store that takes them as one group, and whether that
/// turn is already asked for: one turn is queued at a time, and writes that arrive before it
/// comes join the queue.
struct GroupQueue<Member: GroupMember> {
    private(set) var waiting: [Member] = []
    private var turnAskedFor = false

    /// Queues `member`; true when the caller is to ask for the turn that takes it.
    mutating func enqueue(_ member: Member) -> Bool {
        waiting.append(member)
        defer { turnAskedFor = true }
        return !turnAskedFor
    }

    /// The oldest waiting writes, at most `maxMembers` and about `maxBytes` (the first always
    /// goes in, whatever its size), and whether more wait after them, for which a turn is then
    /// to be asked.
    mutating func takeGroup(maxMembers: Int, maxBytes: Int) -> (group: [Member], more: Bool) {
        var count = 0
        var bytes = 0
        for member in waiting {
            guard count < maxMembers, count == 0 || bytes + member.bytes <= maxBytes else { break }
            count += 1
            bytes += member.bytes
        }
        let group = Array(waiting.prefix(count))
        waiting.removeFirst(count)
        turnAskedFor = !waiting.isEmpty
        return (group, turnAskedFor)
    }

    /// Every waiting write, for a turn that fails them all at once (the store is closed): one turn
    /// answers the whole backlog rather than one group after another.
    mutating func takeAll() -> [Member] {
        defer {
            waiting = []
            turnAskedFor = false
        }
        return waiting
    }
}
