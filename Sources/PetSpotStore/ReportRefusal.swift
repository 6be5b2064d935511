/// Why a change to a report is refused. Nothing is written when one is.
public enum ReportRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No report with that id belongs to the caller (another user's does not exist for them).
    case reportNotFound
    /// The report is closed (`found` or `withdrawn`): only the same close again, or erasure, is allowed.
    case reportClosed(ReportStatus)
    /// The report's personal data is gone: only erasure again is allowed, and changes nothing.
    case reportErased
    /// Retention erases only reports that have left `missing`.
    case stillMissing

    public var description: String {
        switch self {
        case .reportNotFound: "no such report of this user"
        case .reportClosed(let status): "the report is closed (\(status.rawValue)): only erasure can change it"
        case .reportErased: "the report is erased: nothing can change it any more"
        case .stillMissing: "the report is still missing: retention erases only found, withdrawn or expired reports"
        }
    }
}
