#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, by its errno.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let errno: Int32

    public init(errno: Int32) {
        self.errno = errno
    }

    /// strerror(3)'s text: "No such file or directory".
    public var description: String { String(cString: strerror(errno)) }
}
