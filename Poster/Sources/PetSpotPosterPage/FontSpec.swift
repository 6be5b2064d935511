/// A face of the poster's one family and a size in points. DejaVu Sans (fonts-dejavu-core) has
/// every letter of Polish and the bullet of a masked contact, and is embedded in the PDF.
struct FontSpec: Sendable, Equatable {
    static let family = "DejaVu Sans"

    var bold: Bool
    var size: Double

    static func regular(_ size: Double) -> FontSpec { FontSpec(bold: false, size: size) }
    static func bold(_ size: Double) -> FontSpec { FontSpec(bold: true, size: size) }

    var pangoName: String { bold ? "\(Self.family) Bold" : Self.family }
}
