/// The sheet a poster is laid out for.
public enum PaperSize: String, Sendable, CaseIterable {
    case a4, letter

    /// Width and height in PostScript points (1/72 inch): 210 × 297 mm, 8.5 × 11 inches.
    public var points: (width: Double, height: Double) {
        switch self {
        case .a4: (595.2756, 841.8898)
        case .letter: (612, 792)
        }
    }

    /// The media name CUPS knows (`lp -o media=`).
    public var cupsMedia: String {
        switch self {
        case .a4: "A4"
        case .letter: "Letter"
        }
    }

    /// The countries whose glibc locales print on US Letter (their LC_PAPER is 216 × 279 mm):
    /// the United States, Canada, Mexico, the Philippines and a part of Latin America. Every
    /// other country uses A4.
    public static let letterTerritories: Set<String> = [
        "US", "CA", "MX", "PH", "PR", "BO", "CL", "CO", "CR", "GT", "NI", "PA", "SV", "VE",
    ]

    /// The paper of a locale's country: "en_US.UTF-8" and "fr_CA" are Letter, "pl_PL", "en_GB",
    /// "C" and a locale without a country are A4.
    public static func of(territory: String?) -> PaperSize {
        territory.map { letterTerritories.contains($0.uppercased()) } == true ? .letter : .a4
    }
}
