/// A value a field's rule refused at once. It replaces what the field held, so a report never
/// carries a value the person tried to replace: the field is empty, shows what was sent and
/// why it was refused, and Continue stays refused until the field is given a valid value or,
/// if optional, cleared.
struct FieldRefusal: Sendable, Hashable {
    /// The longest echo of a refused text, in characters; it is shown, never stored.
    static let maxSentLength = 500

    /// What the person sent, as they typed it (a photo by its filename), for `display`.
    let sent: String?
    let issue: FieldIssue

    init(sent: String?, issue: FieldIssue) {
        self.sent = sent.map { String($0.prefix(Self.maxSentLength)) }
        self.issue = issue
    }
}
