import Foundation
import Testing

/// The animal list's rules are plain values like the flow's: the module imports the JSON values,
/// the views, the flow's values, and from the C library only the trigonometry of a distance.
@Suite("Board module boundary")
struct ModuleBoundaryTests {
    static let allowed: Set<String> = ["PetSpotJSON", "PetSpotViews", "PetSpotFlow"]
    /// `import func Glibc.sin`: one function, not the C library's I/O.
    static let allowedFunctions: Set<String> = ["asin", "atan2", "cos", "sin"]

    @Test("every file of PetSpotBoard imports only the JSON values, the views, the flow and four math functions")
    func imports() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PetSpotBoard")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                let words = line.split(separator: " ")
                if words.count == 3, words[1] == "func" {
                    let parts = words[2].split(separator: ".")
                    let library = parts.first.map(String.init) ?? ""
                    let function = parts.last.map(String.init) ?? ""
                    #expect(parts.count == 2 && ["Glibc", "Darwin"].contains(library) && Self.allowedFunctions.contains(function),
                            "\(file): \(line)")
                } else {
                    #expect(words.count == 2 && Self.allowed.contains(String(words[1])), "\(file): \(line)")
                }
            }
        }
    }
}
