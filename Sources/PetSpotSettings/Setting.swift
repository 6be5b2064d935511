import PetSpotJSON

/// One key of a configuration file: how its value is read into `Configuration`, and, for a
/// setting a reload cannot apply, how to tell that it changed. A program's table of these is
/// the one list of its settings.
public struct Setting<Configuration>: Sendable {
    public typealias Read = @Sendable (inout Configuration, JSONValue, SettingReader) throws(ConfigurationError) -> Void

    public let key: String
    public let read: Read
    /// Only for a setting a reload cannot apply (a socket, a database, threads…): whether two
    /// configurations hold different values of it.
    public let differs: (@Sendable (Configuration, Configuration) -> Bool)?

    /// A setting a reload puts in force (or a program that does not reload).
    public static func reloaded(_ key: String, _ read: @escaping Read) -> Setting {
        Setting(key: key, read: read, differs: nil)
    }

    /// A setting only a restart puts in force; `differs` tells whether two configurations hold
    /// different values of it.
    public static func restartOnly(_ key: String, differs: @escaping @Sendable (Configuration, Configuration) -> Bool,
                                   _ read: @escaping Read) -> Setting
    {
        Setting(key: key, read: read, differs: differs)
    }

    /// A setting only a restart puts in force; `value` is where the configuration keeps it.
    public static func restartOnly<Value: Equatable & Sendable>(_ key: String, _ value: KeyPath<Configuration, Value> & Sendable,
                                                                _ read: @escaping Read) -> Setting
    {
        Setting(key: key, read: read, differs: { $0[keyPath: value] != $1[keyPath: value] })
    }
}
