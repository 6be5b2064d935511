/// Why an owner's change to a report did not happen: refused by the report's life (nothing
/// was written), or the store failed.
public enum ReportChangeError: Error, Sendable, CustomStringConvertible {
    /// The client's to hear: `reportNotFound`, `reportClosed` or `reportErased`.
    case refused(ReportRefusal)
    /// The caller's own rules refused it (an amendment's value): what they threw.
    case rejected(any Error)
    /// The database's failure, as for any other operation.
    case failed(ReportStoreError)

    public var description: String {
        switch self {
        case .refused(let refusal): "refused: \(refusal)"
        case .rejected(let error): "rejected: \(error)"
        case .failed(let failure): failure.description
        }
    }
}
