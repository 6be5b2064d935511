#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

extension SystemError {
    /// What a message about a failed file operation ends with: the plain system reason
    /// ("Permission denied") inside a Foundation file error, else the error's own words.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? SystemError { return error.description }
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return "\(error)"
    }
}
