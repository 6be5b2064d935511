/// Sizes as a person reads them, in binary units: "512 B", "12.3 KiB", "10 MiB".
enum ByteSize {
    private static let units = ["KiB", "MiB", "GiB", "TiB"]

    /// One decimal, rounded half up, left out when it is zero.
    static func text(_ bytes: Int, decimalSeparator: String) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var unit = 0
        var unitSize = 1024
        var tenths = (bytes * 10 + unitSize / 2) / unitSize
        // Move up a unit rather than show "1024 KiB".
        while tenths >= 10 * 1024 && unit < units.count - 1 {
            unit += 1
            unitSize *= 1024
            tenths = (bytes * 10 + unitSize / 2) / unitSize
        }
        let whole = tenths / 10
        let fraction = tenths % 10
        let number = fraction == 0 ? "\(whole)" : "\(whole)\(decimalSeparator)\(fraction)"
        return "\(number) \(units[unit])"
    }
}
