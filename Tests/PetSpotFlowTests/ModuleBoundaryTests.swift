import Foundation
import Testing

/// The flow's rules are plain values: the module imports the JSON values and what a screen
/// shows, nothing of the wire (PetSpotProtocol), of I/O or of the daemon. libcrypto is there
/// for SHA-256 alone, a pure function of a photo's bytes (`SHA256.swift`).
@Suite("Module boundary")
struct ModuleBoundaryTests {
    static let allowed: Set<String> = ["FoundationEssentials", "PetSpotJSON", "PetSpotViews", "CLibCrypto"]

    @Test("every file of PetSpotFlow imports only the JSON values, the views, FoundationEssentials and libcrypto's digest")
    func imports() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PetSpotFlow")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                let module = String(line.split(separator: " ").last ?? "")
                #expect(Self.allowed.contains(module), "\(file) imports \(module)")
            }
        }
    }
}
