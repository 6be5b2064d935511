#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import PetSpotFlow
import PetSpotProtocol
import PetSpotSystem

/// Where the photos of open flows wait for their submit: files (`SpoolFile`) in the spool
/// directory beside the database, so open flows cost the daemon no memory and no descriptor
/// for their photos. A photo's file goes when the flow lets go of it (a new photo, cancel,
/// expiry, the completed flow dropped); the next start removes what a crash left.
///
/// A photo that would leave the file system with less than `limits.minFreeDiskBytes` free is
/// refused before it is written, so that the submits that copy photos into the database keep
/// working; how much the flows may hold is the registry's (`limits.maxSpooledPhotoBytes`).
public struct PhotoSpool: Sendable {
    public let directory: String
    /// Bytes of the photos being written now, which the file system does not count as used yet:
    /// photos written at the same time cannot each pass the free-space guard alone.
    private let writing = NIOLockedValueBox(0)

    private init(directory: String) {
        self.directory = directory
    }

    /// The spool of the database at `databasePath`: `spool/` beside it, made (0700) if missing,
    /// and emptied of what a crash left there.
    public static func beside(databasePath: String) throws(SystemError) -> PhotoSpool {
        let parent = databasePath.lastIndex(of: "/").map { String(databasePath[..<$0]) } ?? "."
        let directory = parent + "/spool"
        if mkdir(directory, 0o700) != 0, errno != EEXIST { throw SystemError(errno: errno) }
        try SpoolFile.sweep(directory)
        return PhotoSpool(directory: directory)
    }

    /// A photo decoded from its upload straight into a spool file, a part at a time, or the
    /// refusal a client sees.
    func keep(_ upload: Base64Photo, minFreeBytes: Int) throws(RPCError) -> Photo {
        let needed = upload.byteCount
        // Read under the lock: a photo whose write ends meanwhile is then either in the free
        // figure or still among the bytes being written, never in neither.
        let free = writing.withLockedValue { writing -> Int? in
            var fs = statvfs()
            let free = statvfs(directory, &fs) == 0 ? Int(fs.f_bavail) * Int(fs.f_frsize) - writing : Int.max
            guard free - needed >= minFreeBytes else { return free }
            writing += needed
            return nil
        }
        if let free { throw Self.diskFull(free: free, needed: needed, minFreeBytes: minFreeBytes) }
        defer { writing.withLockedValue { $0 -= needed } }
        var sha256 = ""
        let file: SpoolFile
        do throws(SystemError) {
            file = try SpoolFile.write(count: needed, in: directory) { (write) throws(SystemError) in sha256 = try upload.decode(write) }
        } catch where error.errno == ENOSPC || error.errno == EDQUOT {
            throw Self.diskFull(free: 0, needed: needed, minFreeBytes: minFreeBytes)
        } catch {
            throw RPCError(.internalError, "cannot keep the photo in the spool: \(error)")
        }
        return upload.photo(keptIn: SpooledPhoto(file: file), sha256: sha256)
    }

    private static func diskFull(free: Int, needed: Int, minFreeBytes: Int) -> RPCError {
        .limitExceeded("limits.minFreeDiskBytes", max: minFreeBytes,
                       "the disk keeping photos has \(max(0, free)) bytes free (less the photos being written now), and a photo of \(needed) bytes would leave less than limits.minFreeDiskBytes (\(minFreeBytes)); submit or cancel flows with a photo, or try again later")
    }
}

/// A photo's bytes in a spool file.
struct SpooledPhoto: PhotoContent {
    let file: SpoolFile
    var count: Int { file.count }
    func bytes() throws -> [UInt8] { try file.read() }
}
