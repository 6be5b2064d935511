#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A small tmpfs mounted at a folder, for faults of a real file system: full, read-only.
/// Mounting needs root (CI runs as root); tests that need it are enabled by `TmpfsMount.canMount`.
final class TmpfsMount {
    let path: String
    private var mounted = false

    static var canMount: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") }
    static let needsRoot: Comment = "needs root to mount a tmpfs (CI runs as root)"

    /// Mounts a tmpfs of `sizeKiB` at `path`, creating the folder.
    init(at path: String, sizeKiB: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(sizeKiB)k,mode=0700", "tmpfs", path])
        mounted = true
    }

    /// `mount -o remount,ro` or `rw`: root bypasses file modes, not a read-only mount.
    func remount(readOnly: Bool) throws {
        try Self.mount(["-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    /// Writes a file until the file system has no block left; returns its path.
    @discardableResult
    func fill() throws -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupFailed(description: "cannot create \(filler): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // Large writes first, then single bytes, so the last partial page is used up too.
        for chunk in [1 << 20, 4096, 1] {
            let bytes = [UInt8](repeating: 0x55, count: chunk)
            while true {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, chunk) }
                if written < 0 {
                    guard errno == ENOSPC else { throw SetupFailed(description: "writing \(filler): \(String(cString: strerror(errno)))") }
                    break
                }
                if written < chunk { break }
            }
        }
        return filler
    }

    /// Free bytes as statvfs tells them.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_bsize)
    }

    /// Lazy unmount: works while a killed daemon's files are still being closed.
    func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? runProgram("/usr/bin/umount", ["-l", path])
    }

    private static func mount(_ arguments: [String]) throws {
        let result = try runProgram("/usr/bin/mount", arguments)
        guard result.status == 0 else {
            throw SetupFailed(description: "mount \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
    }

    deinit { unmount() }
}

/// A fixture that could not be set up (not the behaviour under test).
struct SetupFailed: Error, CustomStringConvertible {
    let description: String
}
