/// How large a photo is decoded for the page: never more pixels than the page can show, and
/// never a picture too large to hold in memory.
public enum PhotoScaling {
    /// The most pixels a photo may have to be decoded at all: 64 Mi (67,108,864), 256 MiB as the
    /// 4-byte pixels a PNG or WebP decoder holds whole before it is scaled down. Phone cameras
    /// give 12 to 50 megapixels (8000 × 6000 is 48 Mi); a picture past this is refused from its
    /// header, before any of it is decoded (`--max-pixels` changes it).
    public static let defaultMaxPixels = 67_108_864

    /// Pixels per inch a photo keeps in a PDF: what a laser or inkjet printer shows of a photo
    /// at arm's length. A 12-megapixel photo in a poster's photo box is about 1.5 megapixels.
    public static let pdfPixelsPerInch = 200.0

    /// Whether a picture of `width` × `height` may be decoded.
    public static func fits(width: Int, height: Int, maxPixels: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && pixels <= maxPixels
    }

    /// The size to decode a `width` × `height` picture at for a box of `box` pixels: scaled
    /// down (never up, aspect kept) so that it covers the box whether or not its EXIF
    /// orientation turns it a quarter turn; the page scales it the rest of the way.
    public static func decodeSize(width: Int, height: Int, box: (width: Double, height: Double)) -> (width: Int, height: Int) {
        guard width > 0, height > 0, box.width > 0, box.height > 0 else { return (max(width, 1), max(height, 1)) }
        let upright = min(box.width / Double(width), box.height / Double(height))
        let turned = min(box.width / Double(height), box.height / Double(width))
        let factor = min(1, max(upright, turned))
        return (max(1, Int((Double(width) * factor).rounded(.up))), max(1, Int((Double(height) * factor).rounded(.up))))
    }
}
