import PetSpotViews

/// What the process's locale variables say about the poster: its language and its paper, read
/// the way the C library reads them (LC_ALL first, then the category's own variable, then LANG;
/// an empty variable counts as unset).
public enum LocaleEnvironment {
    /// The language of LC_ALL, LC_MESSAGES or LANG when it is one the poster speaks; nil for any
    /// other (and for "C" and "POSIX"), which the poster prints in English.
    public static func language(_ environment: [String: String]) -> FlowLocale? {
        locale(environment, category: "LC_MESSAGES").flatMap { FlowLocale(rawValue: parts(of: $0).language.lowercased()) }
    }

    /// The paper of the country in LC_ALL, LC_PAPER or LANG: Letter for the countries that use
    /// it, A4 otherwise.
    public static func paper(_ environment: [String: String]) -> PaperSize {
        PaperSize.of(territory: locale(environment, category: "LC_PAPER").flatMap { parts(of: $0).territory })
    }

    private static func locale(_ environment: [String: String], category: String) -> String? {
        for name in ["LC_ALL", category, "LANG"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// "pl_PL.UTF-8@euro" is language "pl", territory "PL".
    static func parts(of locale: String) -> (language: String, territory: String?) {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        let pieces = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        let territory = pieces.count > 1 && !pieces[1].isEmpty ? String(pieces[1]) : nil
        return (String(pieces.first ?? ""), territory)
    }
}
