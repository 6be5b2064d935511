/// A contact email address, checked only as far as a typo can be caught without sending mail:
/// one `@`, a non-empty local part, a domain with a dot, no spaces.
public struct EmailAddress: Sendable, Hashable {
    /// The longest address SMTP can deliver to (RFC 5321 path limit less the brackets).
    public static let maxLength = 254

    public enum Problem: Error, Sendable, Hashable {
        case malformed
        case tooLong
    }

    /// The address as given, trimmed.
    public let normalized: String

    public init(parsing input: String) throws(Problem) {
        let address = input.trimming(.whitespacesAndNewlines)
        guard address.count <= EmailAddress.maxLength else { throw .tooLong }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty else {
            throw .malformed
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { throw .malformed }
        let forbidden = address.unicodeScalars.contains {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }
        guard !forbidden else { throw .malformed }
        normalized = address
    }
}
