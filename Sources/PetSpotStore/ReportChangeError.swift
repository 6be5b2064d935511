/// Why an owner's change to a report did not happen: refused by the report's life (nothing
/// was written), or the store failed.
public enum ReportChangeError: Error, Sendable, CustomStringConvertible {
    /// The client's to hear: `reportNotFound`, `reportClosed` or `reportErased`.
    case refused(ReportRefusal)
    /// The database's failure, as for any other operation.
    case failed(ReportStoreError)

    public var description: String {
        switch self {
        case .refused(let refusal): "refused: \(refusal)"
        case .failed(let failure): failure.description
        }
    }
}
