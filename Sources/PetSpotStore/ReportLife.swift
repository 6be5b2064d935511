import FoundationEssentials

/// A report's life after submit, as pure rules: its status, its version, when it last changed,
/// and the moments retention counts from. `applying(_:at:)` is the one place that decides what
/// a change does; the store only writes its answer.
///
/// Retention deadlines are not kept: `reports.expireAfterDays` and `reports.eraseAfterDays` can
/// be reloaded, so a deadline is a base plus the setting in force when it is asked for.
public struct ReportLife: Sendable, Hashable {
    public let status: ReportStatus
    /// 1 at submit, +1 at every change.
    public let version: Int
    public let updatedAt: Date
    /// When the report became `missing`, or was last renewed: it expires `reports.expireAfterDays`
    /// later. nil in any other status, and once erased.
    public let expiryBase: Date?
    /// When the report became `found`, `withdrawn` or `expired`: retention erases it
    /// `reports.eraseAfterDays` later. nil while `missing`, and once erased.
    public let eraseBase: Date?
    /// When its personal data was erased; nil while it has it.
    public let erasedAt: Date?

    public init(status: ReportStatus, version: Int, updatedAt: Date, expiryBase: Date?, eraseBase: Date?, erasedAt: Date?) {
        self.status = status
        self.version = version
        self.updatedAt = updatedAt
        self.expiryBase = expiryBase
        self.eraseBase = eraseBase
        self.erasedAt = erasedAt
    }

    /// A report as submit stores it: `missing`, version 1, expiring from `time`.
    public static func submitted(at time: Date) -> ReportLife {
        ReportLife(status: .missing, version: 1, updatedAt: time, expiryBase: time, eraseBase: nil, erasedAt: nil)
    }

    public var isErased: Bool { erasedAt != nil }

    /// When a `missing` report becomes `expired` unless renewed (the protocol's `expiresAt`);
    /// nil in any other status.
    public func expiresAt(after expireAfter: Duration) -> Date? {
        expiryBase.map { $0.adding(expireAfter) }
    }

    /// When retention erases the report; nil while `missing` and once erased.
    public func erasesAt(after eraseAfter: Duration) -> Date? {
        eraseBase.map { $0.adding(eraseAfter) }
    }

    /// What applying a change comes to.
    public enum Outcome: Sendable, Hashable {
        /// A new version: the report as it is after the change.
        case changed(ReportLife)
        /// The change is already in effect (the same close again, an erasure of an erased
        /// report, an amendment to the same values): the report stays as it is, no new version.
        case unchanged
        case refused(ReportRefusal)
    }

    /// The rules of REPORTS.md, "A report's life":
    /// - close: from `missing` or `expired`; the same outcome again is unchanged; another on a
    ///   closed report is refused (`reportClosed`);
    /// - renew: `missing` or `expired` becomes `missing`, expiring from now; refused when closed;
    /// - amend: of a `missing` or `expired` report, its status kept; refused when closed;
    /// - erase: from any status, a `missing` report becoming `withdrawn`; again, unchanged;
    /// - expire (retention): `missing` becomes `expired`; an `expired` one is unchanged;
    /// - erase by retention: of a `found`, `withdrawn` or `expired` report (`stillMissing` otherwise);
    /// - an erased report refuses every change but erasure (`reportErased`).
    ///
    /// Every change bumps the version by one and sets `updatedAt` to `now`; leaving `missing`
    /// starts the erase base, and erasure ends both bases.
    public func applying(_ change: ReportChange, at now: Date) -> Outcome {
        if isErased {
            switch change {
            case .erase, .eraseByRetention: return .unchanged
            case .close, .renew, .amend, .expire: return .refused(.reportErased)
            }
        }
        switch change {
        case .close(let closing):
            switch status {
            case .missing, .expired:
                return .changed(next(now, status: closing.status, expiryBase: nil, eraseBase: now))
            case .found, .withdrawn:
                return status == closing.status ? .unchanged : .refused(.reportClosed(status))
            }
        case .renew:
            guard !status.isClosed else { return .refused(.reportClosed(status)) }
            return .changed(next(now, status: .missing, expiryBase: now, eraseBase: nil))
        case .amend(let changesValues):
            guard !status.isClosed else { return .refused(.reportClosed(status)) }
            guard changesValues else { return .unchanged }
            return .changed(next(now, status: status, expiryBase: expiryBase, eraseBase: eraseBase))
        case .erase:
            return .changed(next(now, status: status == .missing ? .withdrawn : status,
                                 expiryBase: nil, eraseBase: nil, erasedAt: now))
        case .eraseByRetention:
            guard status != .missing else { return .refused(.stillMissing) }
            return .changed(next(now, status: status, expiryBase: nil, eraseBase: nil, erasedAt: now))
        case .expire:
            switch status {
            case .missing: return .changed(next(now, status: .expired, expiryBase: nil, eraseBase: now))
            case .expired: return .unchanged
            case .found, .withdrawn: return .refused(.reportClosed(status))
            }
        }
    }

    private func next(_ now: Date, status: ReportStatus, expiryBase: Date?, eraseBase: Date?, erasedAt: Date? = nil) -> ReportLife {
        ReportLife(status: status, version: version + 1, updatedAt: now, expiryBase: expiryBase, eraseBase: eraseBase,
                   erasedAt: erasedAt)
    }
}
