/// A photo the poster will not print.
public enum PhotoRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// More pixels than `maxPixels`: refused from its header, never decoded.
    case tooManyPixels(width: Int, height: Int, maxPixels: Int)
    /// The decoder found the data broken.
    case undecodable(mediaType: String, reason: String)

    public var description: String {
        switch self {
        case .tooManyPixels(let width, let height, let maxPixels):
            "photo: \(width) × \(height) pixels (\(Self.megapixels(width * height))) is more than the \(Self.megapixels(maxPixels)) "
                + "a poster decodes (--max-pixels \(maxPixels)); it was not decoded"
        case .undecodable(let mediaType, let reason):
            "photo: the \(mediaType) image cannot be decoded: \(reason)"
        }
    }

    /// "400.0 megapixels"; below a tenth of one, "10000 pixels".
    static func megapixels(_ pixels: Int) -> String {
        guard pixels >= 100_000 else { return "\(pixels) pixels" }
        let tenths = (pixels + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) megapixels"
    }
}
