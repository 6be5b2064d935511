/// Something that happens to a stored report: what its owner asks for, or what retention does.
public enum ReportChange: Sendable, Hashable {
    /// How an owner closes a report (`reports.close`'s `outcome`).
    public enum Closing: String, Sendable, Hashable, CaseIterable {
        case found
        case withdrawn

        public var status: ReportStatus {
            switch self {
            case .found: .found
            case .withdrawn: .withdrawn
            }
        }
    }

    /// `reports.close`.
    case close(Closing)
    /// `reports.renew`.
    case renew
    /// `reports.amend`; `changesValues` is false when the values given are those the report
    /// holds, which changes nothing.
    case amend(changesValues: Bool)
    /// `reports.erase`.
    case erase
    /// Retention: a `missing` report not renewed for `reports.expireAfterDays`.
    case expire
    /// Retention: a report `found`, `withdrawn` or `expired` for `reports.eraseAfterDays`.
    case eraseByRetention
}
