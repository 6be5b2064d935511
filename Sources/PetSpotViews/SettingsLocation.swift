import PetSpotJSON

/// Where a person changes a setting: the configuration file and the key in it. This is what
/// "Go to Settings" points at on a daemon: the `settings` of an alert's action and of a
/// location outcome.
public struct SettingsLocation: Sendable, Hashable {
    public let file: String
    public let key: String

    public init(file: String, key: String) {
        (self.file, self.key) = (file, key)
    }

    /// `{file, key}`.
    public var json: JSONValue {
        ["file": .string(file), "key": .string(key)]
    }
}
