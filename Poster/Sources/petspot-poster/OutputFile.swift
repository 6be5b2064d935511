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
        try FileDescriptorIO.replaceFile(path, bytes: bytes)
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
