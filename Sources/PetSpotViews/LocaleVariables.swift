/// What the process's locale variables say, read the way the C library reads them (LC_ALL
/// first, then the category's own variable, then LANG; an empty variable counts as unset):
/// petspot and petspot-poster choose a poster's language alike.
public enum LocaleVariables {
    /// The locale in force for `category` ("LC_MESSAGES", "LC_PAPER"), e.g. "pl_PL.UTF-8".
    public static func value(_ environment: [String: String], category: String) -> String? {
        for name in ["LC_ALL", category, "LANG"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// "pl_PL.UTF-8@euro" is language "pl", territory "PL".
    public static func parts(of locale: String) -> (language: String, territory: String?) {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        let pieces = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        let territory = pieces.count > 1 && !pieces[1].isEmpty ? String(pieces[1]) : nil
        return (String(pieces.first ?? ""), territory)
    }
}

extension FlowLocale {
    /// The language of LC_ALL, LC_MESSAGES or LANG when it is one the flow speaks; nil for any
    /// other (and for "C" and "POSIX").
    public init?(environment: [String: String]) {
        guard let locale = LocaleVariables.value(environment, category: "LC_MESSAGES") else { return nil }
        self.init(rawValue: LocaleVariables.parts(of: locale).language.lowercased())
    }
}
