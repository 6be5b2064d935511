import PetSpotJSON
import PetSpotSystem

/// Reads a JSON configuration file against a table of settings, the same way for every
/// program: nested objects are dotted keys ("limits.maxFlows"), a key the table does not hold
/// is refused (a typo never silently leaves a default in place), and every failure is one line
/// naming the file, the key and what is wrong.
public enum SettingsFile {
    /// The file's JSON.
    public static func read(_ file: String) throws(ConfigurationError) -> JSONValue {
        let data: [UInt8]
        do {
            data = try FileDescriptorIO.readFile(file)
        } catch {
            throw ConfigurationError("\(file): cannot read the configuration file: \(SystemError.reason(error))")
        }
        do {
            return try JSONParser.parse(data)
        } catch {
            throw ConfigurationError("\(file): not valid JSON: \(error)")
        }
    }

    /// Applies each member of `json` with its setting of `settings`, in the file's order. A key
    /// of `formerNames` (a setting's old name) is read as the setting it names.
    public static func apply<C>(_ json: JSONValue, to configuration: inout C, settings: [Setting<C>], formerNames: [String: String] = [:],
                                file: String) throws(ConfigurationError) {
        guard case .object = json else {
            throw ConfigurationError("\(file): the configuration must be a JSON object")
        }
        var flat: [(key: String, value: JSONValue)] = []
        flatten(json, prefix: "", settings: settings, into: &flat)
        for (written, value) in flat {
            let key = formerNames[written] ?? written
            guard let setting = settings.first(where: { $0.key == key }) else {
                throw ConfigurationError("\(file): unknown key \"\(key)\"\(hint(for: key, settings.map(\.key)))")
            }
            try setting.read(&configuration, value, SettingReader(file: file, key: key))
        }
    }

    /// The key meant, when one is near enough: the same but for case, or a section and a key of
    /// it confused; otherwise the known keys, when there are few enough to read.
    static func hint(for key: String, _ known: [String]) -> String {
        if let meant = known.first(where: { $0.lowercased() == key.lowercased() })
            ?? known.first(where: { $0.hasPrefix(key + ".") || key.hasPrefix($0 + ".") })
        {
            return "; did you mean \"\(meant)\"?"
        }
        return known.count <= 12 ? "; known: \(known.joined(separator: ", "))" : ""
    }

    /// Nested objects become dotted keys; an object that is itself a setting's value stays whole.
    private static func flatten<C>(_ value: JSONValue, prefix: String, settings: [Setting<C>], into flat: inout [(key: String, value: JSONValue)]) {
        // An empty object that is no section of the table stands as a key of its own, so that a
        // misspelt section is refused rather than passed over.
        let isSection = prefix.isEmpty || settings.contains { $0.key.hasPrefix(prefix + ".") }
        guard case .object(let object) = value, !object.isEmpty || isSection, !settings.contains(where: { $0.key == prefix }) else {
            flat.append((key: prefix, value: value))
            return
        }
        for member in object {
            flatten(member.value, prefix: prefix.isEmpty ? member.key : prefix + "." + member.key, settings: settings, into: &flat)
        }
    }
}
