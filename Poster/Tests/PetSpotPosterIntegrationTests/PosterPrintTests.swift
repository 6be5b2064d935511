import Foundation
import PetSpotJSON
import Testing

@Suite("--print hands the PDF to lp", .serialized)
struct PosterPrintTests {
    /// A stand-in for lp that keeps its arguments and the job it was given, and exits `status`.
    private func fakeLP(in folder: ScratchFolder, status: Int = 0) throws -> String {
        let path = folder.path("lp")
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(folder.path("lp-arguments"))'
            cat > '\(folder.path("job.pdf"))'
            echo "request id is Kiosk-1 (1 file(s))"
            exit \(status)
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test("lp gets the PDF on its standard input, the printer, the title and the paper; no file is left behind")
    func printed() throws {
        let folder = try ScratchFolder()
        let lp = try fakeLP(in: folder)
        let poster = try PosterRun.make(Documents.publicAnimal(), ["--print", "--printer", "Kiosk_2", "--lp-command", lp, "--locale", "en", "--paper", "a4"])
        #expect(poster.succeeded, "\(poster.result)")
        let arguments = try String(contentsOfFile: folder.path("lp-arguments"), encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(arguments == ["-d", "Kiosk_2", "-t", "Missing: Pies", "-o", "media=A4"])
        #expect(try PDFTools.info(folder.path("job.pdf"))["Pages"] == "1")
        #expect(try PDFTools.text(folder.path("job.pdf")).contains("MISSING"))
        // lp's own words go to standard error.
        #expect(poster.result.stdout.isEmpty && poster.result.stderr.contains("request id is Kiosk-1"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: poster.folder.url.path).isEmpty)
    }

    @Test("PETSPOT_POSTER_LP names lp; --output also keeps the file; Letter paper is asked for as Letter")
    func environmentAndFile() throws {
        let folder = try ScratchFolder()
        let lp = try fakeLP(in: folder)
        let kept = folder.path("kept.pdf")
        let poster = try PosterRun.make(Documents.publicAnimal(), ["--print", "--output", kept, "--paper", "letter"], environment: ["PETSPOT_POSTER_LP": lp])
        #expect(poster.succeeded, "\(poster.result)")
        let arguments = try String(contentsOfFile: folder.path("lp-arguments"), encoding: .utf8)
        #expect(arguments.contains("media=Letter") && !arguments.contains("-d\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data(contentsOf: URL(fileURLWithPath: folder.path("job.pdf"))))
    }

    @Test("an lp that fails or is not there: exit 69 with what went wrong")
    func failing() throws {
        let folder = try ScratchFolder()
        let refusing = try PosterRun.make(Documents.publicAnimal(), ["--print", "--lp-command", try fakeLP(in: folder, status: 1)])
        #expect(refusing.result.status == 69 && refusing.result.stderr.contains("exited with status 1"), "\(refusing.result)")
        let missing = try PosterRun.make(Documents.publicAnimal(), ["--print", "--lp-command", folder.path("no-such-lp")])
        #expect(missing.result.status == 69 && missing.result.stderr.contains("cannot start"), "\(missing.result)")
    }
}
