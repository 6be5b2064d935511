import CCairo

/// The photo as the page draws it: a cairo image at the size it is printed, or the reason
/// there is none.
enum PagePhoto {
    /// Decoded and scaled; the surface may carry the JPEG the PDF embeds as it is.
    case image(PhotoImage)
    /// The report has no photo.
    case none
    /// No decoder for its type is installed (HEIC without heif-gdk-pixbuf).
    case notShown
}

/// A cairo image surface that frees itself.
final class PhotoImage {
    let surface: OpaquePointer
    let width: Int
    let height: Int

    init(surface: OpaquePointer, width: Int, height: Int) {
        self.surface = surface
        self.width = width
        self.height = height
    }

    deinit {
        cairo_surface_destroy(surface)
    }
}
