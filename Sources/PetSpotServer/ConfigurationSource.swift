/// Where the daemon's settings come from: the file named by `--config`, else the first file of
/// the search list that exists, else the built-in defaults. It is chosen once at start, so a
/// reload re-reads the same file.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// `--config FILE`: it must be readable, or the start fails with EX_CONFIG.
    case named(String)
    /// No `--config`; this file of the search list exists.
    case found(String)
    /// No `--config` and no file of the search list.
    case builtInDefaults

    /// A checkout's own configuration first, then the installed one.
    public static let searchList = ["config/petspotd.json", "/etc/petspotd/petspotd.json"]

    public static func locate(named: String?, searchList: [String] = searchList,
                              exists: (String) -> Bool) -> ConfigurationSource
    {
        if let named { return .named(named) }
        return searchList.first(where: exists).map(ConfigurationSource.found) ?? .builtInDefaults
    }

    /// The file to read, if any.
    public var file: String? {
        switch self {
        case .named(let file), .found(let file): file
        case .builtInDefaults: nil
        }
    }

    public var description: String {
        switch self {
        case .named(let file): "\(file) (--config)"
        case .found(let file): "\(file) (found; no --config given)"
        case .builtInDefaults:
            "built-in defaults (no --config, and none of \(Self.searchList.joined(separator: ", ")) exists)"
        }
    }
}
