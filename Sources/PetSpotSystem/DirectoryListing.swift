#if canImport(Glibc)
import Glibc
#endif

/// The names in a directory, read with readdir(3): FoundationEssentials' FileManager does not
/// list directories, and the daemon lists /proc/self/fd and its spool.
public enum DirectoryListing {
    /// Every name in `path` but "." and "..", in the order the file system gives them.
    public static func names(in path: String) throws(SystemError) -> [String] {
        guard let dir = opendir(path) else { throw SystemError(errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
