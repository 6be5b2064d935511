import PetSpotViews

/// What the process's locale variables say about the poster: its language and its paper
/// (`LocaleVariables`).
public enum LocaleEnvironment {
    /// The language of LC_ALL, LC_MESSAGES or LANG when it is one the poster speaks; nil for any
    /// other (and for "C" and "POSIX"), which the poster prints in English.
    public static func language(_ environment: [String: String]) -> FlowLocale? {
        FlowLocale(environment: environment)
    }

    /// The paper of the country in LC_ALL, LC_PAPER or LANG: Letter for the countries that use
    /// it, A4 otherwise.
    public static func paper(_ environment: [String: String]) -> PaperSize {
        PaperSize.of(territory: LocaleVariables.value(environment, category: "LC_PAPER").flatMap { LocaleVariables.parts(of: $0).territory })
    }
}
