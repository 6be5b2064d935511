/// Sizes as a person reads them, in binary units: "512 B", "12.3 KiB", "10 MiB". The one way
/// both programs write a size: the daemon in its screens and messages, petspot in its own.
public enum ByteSize {
    private static let units = ["KiB", "MiB", "GiB", "TiB"]

    /// One decimal, rounded half up, left out when it is zero. A size that would round to
    /// 1024 of a unit is written in the next one: 1,048,575 B is "1 MiB", not "1024 KiB".
    public static func text(_ bytes: Int, decimalSeparator: String = ".") -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var unit = 0
        var unitSize = 1024
        var tenths = roundedTenths(bytes, of: unitSize)
        while tenths >= 10 * 1024 && unit < units.count - 1 {
            unit += 1
            unitSize *= 1024
            tenths = roundedTenths(bytes, of: unitSize)
        }
        let whole = tenths / 10
        let fraction = tenths % 10
        let number = fraction == 0 ? "\(whole)" : "\(whole)\(decimalSeparator)\(fraction)"
        return "\(number) \(units[unit])"
    }

    /// (bytes × 10 + unit / 2) / unit, without multiplying `bytes` itself, which could overflow.
    private static func roundedTenths(_ bytes: Int, of unitSize: Int) -> Int {
        bytes / unitSize * 10 + (bytes % unitSize * 10 + unitSize / 2) / unitSize
    }
}
