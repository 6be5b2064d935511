import Foundation
import Testing

/// A small ext4 file system on a loop device, mounted with `errors=remount-ro`: the kernel turns
/// it read-only under open files when it meets an error, as a failing disk does. (A tmpfs
/// cannot be remounted read-only while a file on it is open for writing.) Needs root, loop
/// devices and e2fsprogs.
final class Ext4LoopMount {
    let path: String
    let image: String
    private var mounted = false

    static var available: Bool {
        TmpfsMount.canMount && FileManager.default.fileExists(atPath: "/dev/loop-control")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4")
    }
    static let needsLoop: Comment = "needs root, loop devices and e2fsprogs to make a file system fail (CI runs as root)"

    init(at path: String, image: String, sizeMiB: Int = 8) throws {
        self.path = path
        self.image = image
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: image, contents: nil)
        guard truncate(image, off_t(sizeMiB) << 20) == 0 else { throw SetupFailed(description: "cannot size \(image)") }
        try Self.run("/usr/sbin/mkfs.ext4", ["-q", "-F", image])
        try mount()
    }

    func mount() throws {
        try Self.run("/usr/bin/mount", ["-o", "loop,errors=remount-ro", image, path])
        mounted = true
    }

    /// Makes the kernel meet a file-system error (ext4's `trigger_fs_error`): the journal is
    /// aborted and the file system is read-only from then on, until unmounted and checked.
    func fail() throws {
        let source = try Self.run("/usr/bin/findmnt", ["-no", "SOURCE", path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let device = source.split(separator: "/").last.map(String.init) ?? ""
        try "1".write(toFile: "/sys/fs/ext4/\(device)/trigger_fs_error", atomically: false, encoding: .utf8)
    }

    /// What an operator does after such an error: unmount, `e2fsck -fy`, mount again.
    func repair() throws {
        try Self.run("/usr/bin/umount", [path])
        mounted = false
        let check = try runProgram("/usr/sbin/e2fsck", ["-fy", image])
        // 0: clean, 1: errors corrected.
        guard check.status == 0 || check.status == 1 else {
            throw SetupFailed(description: "e2fsck exited \(check.status): \(check.stdout)\(check.stderr)")
        }
        try mount()
    }

    var isReadOnly: Bool {
        ((try? Self.run("/usr/bin/findmnt", ["-no", "OPTIONS", path])) ?? "").split(separator: ",").contains("ro")
            || ((try? Self.run("/usr/bin/findmnt", ["-no", "OPTIONS", path])) ?? "").contains("emergency_ro")
    }

    func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? runProgram("/usr/bin/umount", ["-l", path])
    }

    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) throws -> String {
        let result = try runProgram(program, arguments)
        guard result.status == 0 else {
            throw SetupFailed(description: "\(program) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    deinit {
        unmount()
        try? FileManager.default.removeItem(atPath: image)
    }
}
