#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotProtocol
import PetSpotSystem

/// An image file read for `flow.update`: the daemon takes a photo as base64 and decides its
/// type by its bytes, so the client only reads and encodes.
struct PhotoFile {
    let path: String
    let bytes: [UInt8]

    /// The file's name without its folders, sent as the daemon's `filename` hint.
    var filename: String { path.split(separator: "/").last.map(String.init) ?? path }

    /// Characters of the base64 text: what the request line will carry.
    var encodedSize: Int { (bytes.count + 2) / 3 * 4 }

    /// Room a request line takes besides the photo's base64 text: the envelope, the other values.
    private static let requestRoom = 1024

    /// Whether a request carrying the photo fits the daemon's longest line (`limits.maxLineBytes`):
    /// base64 grows the bytes by a third.
    func fits(maxLineBytes: Int) -> Bool {
        encodedSize + Self.requestRoom <= maxLineBytes
    }

    /// The largest photo, in bytes, whose request fits `maxLineBytes`.
    static func largest(maxLineBytes: Int) -> Int {
        max(maxLineBytes - requestRoom, 0) / 4 * 3
    }

    var upload: PhotoUpload {
        PhotoUpload(data: Data(bytes).base64EncodedString(), filename: filename)
    }

    struct Unreadable: Error {
        let reason: String
    }

    /// Reads the file a person named: quotes a terminal added around a dropped file are
    /// removed and a leading "~/" means the home folder.
    static func read(typed: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Unreadable) -> PhotoFile {
        let path = resolve(typed, home: environment["HOME"])
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Unreadable(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw Unreadable(reason: String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw Unreadable(reason: "not a regular file") }
        do {
            return PhotoFile(path: path, bytes: try FileDescriptorIO.readToEnd(fd))
        } catch {
            throw Unreadable(reason: error.description)
        }
    }

    static func resolve(_ typed: String, home: String?) -> String {
        var path = typed.trimmingWhitespace
        if path.count >= 2, let first = path.first, first == "'" || first == "\"", path.last == first {
            path = String(path.dropFirst().dropLast())
        }
        path = path.replacing("\\ ", with: " ")
        if let home, path == "~" || path.hasPrefix("~/") {
            path = home + path.dropFirst()
        }
        return path
    }
}
