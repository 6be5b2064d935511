/// A random version-4 UUID in lowercase text: the ids of flows and reports.
///
/// Drawn from the system's generator (Linux's `getrandom(2)`, which needs no descriptor), not
/// Foundation's `UUID()`, whose bytes on Linux come from a file it opens: with the process out
/// of descriptors it gave 00000000-0000-4000-8000-000000000000 to every caller.
public enum RandomID {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return text(high: generator.next(), low: generator.next())
    }

    /// The UUID of these 128 bits, with the version (4) and the variant (RFC 9562) set.
    static func text(high: UInt64, low: UInt64) -> String {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & ~(0xC << 60)) | (0x8 << 60)
        let hex = hexDigits(high, 16) + hexDigits(low, 16)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    private static func hexDigits(_ value: UInt64, _ count: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: count - digits.count) + digits
    }
}
