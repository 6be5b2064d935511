#if canImport(Glibc)
import Glibc
#endif
import PetSpotSystem

/// Writes the poster: to standard output for "-", else to a new file in the same folder that
/// then takes the name, so that a poster already there is replaced whole or not at all.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String) throws(SystemError) {
        if path == "-" {
            try FileDescriptorIO.write(STDOUT_FILENO, bytes: bytes)
            return
        }
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(errno: errno) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(SystemError) {
            defer { close(fd) }
            try FileDescriptorIO.write(fd, bytes: bytes)
            // mkstemp makes it 0600; a poster is no secret, and is read like any document.
            let mask = umask(0)
            umask(mask)
            guard fchmod(fd, 0o666 & ~mask) == 0, fsync(fd) == 0 else { throw SystemError(errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw SystemError(errno: failure)
        }
    }

    /// "missing-3f2a0c1e-….pdf": the id with anything but letters, digits, `.`, `_` and `-`
    /// made `-`, so that no id names a file elsewhere.
    static func defaultName(id: String, extension ext: String) -> String {
        let safe = String(id.unicodeScalars.map { scalar -> Character in
            let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-"
            return allowed ? Character(scalar) : "-"
        })
        return "missing-\(safe).\(ext)"
    }
}
