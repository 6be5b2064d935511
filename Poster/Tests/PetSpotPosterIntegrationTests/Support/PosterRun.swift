import Foundation
import PetSpotJSON

/// One run of petspot-poster on a document, and its output file.
struct PosterRun {
    let result: ProgramResult
    let output: String
    let folder: ScratchFolder

    /// Runs petspot-poster on `document` with `arguments`, writing `poster.pdf` (or `.png`) in
    /// a scratch folder unless the arguments name the output.
    static func make(_ document: JSONValue, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> PosterRun {
        let folder = try ScratchFolder()
        let output = folder.path(arguments.contains("--png") ? "poster.png" : "poster.pdf")
        let named = arguments.contains("--output") || arguments.contains("-o") || arguments.contains("--print")
        let result = try run(Programs.poster, arguments + (named ? [] : ["--output", output]), input: Data(JSONWriter.string(document).utf8),
                             environment: Programs.environment(environment), in: folder.url)
        return PosterRun(result: result, output: output, folder: folder)
    }

    var succeeded: Bool { result.status == 0 }
}
