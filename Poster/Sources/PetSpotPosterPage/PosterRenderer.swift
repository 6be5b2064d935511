import CCairo
import PetSpotPoster

/// Makes the poster's file: lays out the page, decodes the photo at the size it is printed,
/// draws, and answers the bytes of the PDF or PNG.
public enum PosterRenderer {
    public static func render(
        _ content: PosterContent, photo: PosterDocument.Photo?, paper: PaperSize, format: PosterFormat,
        maxPixels: Int = PhotoScaling.defaultMaxPixels
    ) throws(PosterRenderError) -> [UInt8] {
        let sink = ByteSink()
        let (width, height) = paper.points
        let surface: OpaquePointer?
        let pixelsPerPoint: Double
        switch format {
        case .pdf:
            surface = cairo_pdf_surface_create_for_stream(ByteSink.write, Unmanaged.passUnretained(sink).toOpaque(), width, height)
            pixelsPerPoint = PhotoScaling.pdfPixelsPerInch / 72
            if let surface {
                cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, content.title)
                cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "petspot-poster")
            }
        case .png(let dpi):
            pixelsPerPoint = dpi / 72
            surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32((width * pixelsPerPoint).rounded()), Int32((height * pixelsPerPoint).rounded()))
        }
        guard let surface else { throw .drawing("cairo made no surface") }
        defer { cairo_surface_destroy(surface) }
        try check(cairo_surface_status(surface))

        guard let cairo = cairo_create(surface) else { throw .drawing("cairo made no context") }
        defer { cairo_destroy(cairo) }
        if case .png = format { cairo_scale(cairo, pixelsPerPoint, pixelsPerPoint) }
        let context = PageTextContext(cairo: cairo)
        let layout = PosterLayout(content, paper: paper, in: context)

        let pagePhoto: PagePhoto
        if let photo {
            let box = (width: layout.photoBox.width * pixelsPerPoint, height: layout.photoBox.height * pixelsPerPoint)
            do throws(PhotoRefusal) {
                pagePhoto = try PhotoLoader.load(photo, box: box, maxPixels: maxPixels, embedJPEG: format == .pdf)
            } catch {
                throw .photo(error)
            }
        } else {
            pagePhoto = .none
        }
        let qrCode: QRCodeMatrix?
        do throws(QRCodeMatrix.Failure) {
            qrCode = try content.qrCode.map { code throws(QRCodeMatrix.Failure) in try QRCodeMatrix(encoding: code.payload.uri) }
        } catch {
            throw .drawing(error.description)
        }

        PosterPainter.draw(layout, content: content, photo: pagePhoto, qrCode: qrCode, on: cairo, in: context)
        try check(cairo_status(cairo))
        switch format {
        case .pdf:
            cairo_show_page(cairo)
            cairo_surface_finish(surface)
            try check(cairo_surface_status(surface))
        case .png:
            cairo_surface_flush(surface)
            try check(cairo_surface_write_to_png_stream(surface, ByteSink.write, Unmanaged.passUnretained(sink).toOpaque()))
        }
        return withExtendedLifetime(sink) { sink.bytes }
    }

    private static func check(_ status: cairo_status_t) throws(PosterRenderError) {
        guard status == CAIRO_STATUS_SUCCESS else { throw .drawing(String(cString: cairo_status_to_string(status))) }
    }
}

/// Collects what cairo writes.
private final class ByteSink {
    var bytes: [UInt8] = []

    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        if let data, length > 0 { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length))) }
        return CAIRO_STATUS_SUCCESS
    }
}
