/// What the next line the person types answers.
enum ReportFocus: Equatable {
    /// A value for this field of the current step.
    case field(String)
    /// After the last field: Enter continues.
    case proceed
    /// The summary: submit or go back.
    case summary
    /// One of the open alert's actions.
    case alert
}

/// What changed since the last frame: a redrawn terminal shows everything anyway, the plain
/// mode prints only what is new so a transcript reads top to bottom.
enum ScreenChange: Equatable {
    case screen
    case field(String)
    case none
}
