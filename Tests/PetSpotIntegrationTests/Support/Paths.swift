import Foundation

/// Where the package and its built programs are.
enum Paths {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder with `petspotd` and `petspot`: PETSPOT_BIN_DIR, else beside the test bundle,
    /// else .build/debug.
    static let binaries: URL = {
        if let dir = ProcessInfo.processInfo.environment["PETSPOT_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [beside, beside.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")]
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("petspotd").path) {
            return candidate
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }()

    static var petspotd: String { binaries.appendingPathComponent("petspotd").path }
    static var petspot: String { binaries.appendingPathComponent("petspot").path }
    static var speciesFile: String { packageRoot.appendingPathComponent("config/species.json").path }
}
