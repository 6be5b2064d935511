import Foundation
import Testing

@Suite("make install-poster", .serialized)
struct PosterInstallTests {
    @Test("lays out the program and its man page; uninstall-poster removes them")
    func tree() throws {
        let root = try ScratchFolder()
        let make = ["-C", Programs.packageRoot.deletingLastPathComponent().path, "--no-print-directory"]
        let binaries = URL(fileURLWithPath: Programs.poster).deletingLastPathComponent().path
        let installed = try run("/usr/bin/make", make + ["install-poster", "DESTDIR=\(root.url.path)", "PREFIX=/usr", "SWIFT_BIN_DIR=\(binaries)"])
        #expect(installed.status == 0, "\(installed)")
        let program = root.path("usr/bin/petspot-poster"), manual = root.path("usr/share/man/man1/petspot-poster.1")
        #expect(FileManager.default.isExecutableFile(atPath: program))
        #expect(try String(contentsOfFile: manual, encoding: .utf8).hasPrefix(".TH PETSPOT-POSTER 1"))
        #expect(try run(program, ["--version"]).status == 0)
        let removed = try run("/usr/bin/make", make + ["uninstall-poster", "DESTDIR=\(root.url.path)", "PREFIX=/usr"])
        #expect(removed.status == 0, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: program) && !FileManager.default.fileExists(atPath: manual))
    }
}
