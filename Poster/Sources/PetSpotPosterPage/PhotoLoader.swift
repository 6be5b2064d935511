import CCairo
import CGdkPixbuf
import PetSpotPoster

/// Decodes a photo with gdk-pixbuf's loader for its media type, straight to the size the page
/// needs: the loader is told its size as soon as the header gives the picture's, so a JPEG is
/// decoded at 1/2, 1/4 or 1/8 of its size by libjpeg itself, and a picture of more than
/// `maxPixels` is stopped there, before a row of it is decoded.
enum PhotoLoader {
    /// Bytes handed to the loader at a time: the header comes in the first, so a refused
    /// picture costs one write.
    static let chunkBytes = 64 * 1024

    /// JPEG quality of the copy a PDF embeds (DCTDecode): the photo at page resolution in a
    /// tenth of the bytes of the same pixels deflated, with no difference a print shows.
    static let pdfJPEGQuality = "90"

    static func load(
        _ photo: PosterDocument.Photo, box: (width: Double, height: Double), maxPixels: Int, embedJPEG: Bool
    ) throws(PhotoRefusal) -> PagePhoto {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let loader = gdk_pixbuf_loader_new_with_mime_type(photo.mediaType, &error) else {
            g_clear_error(&error)
            return .notShown
        }
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }

        let probe = SizeProbe(box: box, maxPixels: maxPixels)
        let onSizePrepared: @convention(c) (UnsafeMutablePointer<GdkPixbufLoader>?, gint, gint, gpointer?) -> Void = {
            loader, width, height, data in
            guard let loader, let data else { return }
            let probe = Unmanaged<SizeProbe>.fromOpaque(data).takeUnretainedValue()
            probe.header = (Int(width), Int(height))
            if PhotoScaling.fits(width: Int(width), height: Int(height), maxPixels: probe.maxPixels) {
                let size = PhotoScaling.decodeSize(width: Int(width), height: Int(height), box: probe.box)
                gdk_pixbuf_loader_set_size(loader, gint(size.width), gint(size.height))
            } else {
                // 0 × 0 makes every loader stop before it allocates the picture.
                probe.refused = true
                gdk_pixbuf_loader_set_size(loader, 0, 0)
            }
        }
        withExtendedLifetime(probe) {
            _ = g_signal_connect_data(
                UnsafeMutableRawPointer(loader), "size-prepared", unsafeBitCast(onSizePrepared, to: GCallback.self),
                Unmanaged.passUnretained(probe).toOpaque(), nil, GConnectFlags(rawValue: 0))
        }

        var failure: String? = nil
        photo.bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count, failure == nil, !probe.refused {
                let count = min(chunkBytes, bytes.count - offset)
                if gdk_pixbuf_loader_write(loader, bytes.baseAddress! + offset, gsize(count), &error) == 0 {
                    failure = GLibError.take(error)
                    error = nil
                }
                offset += count
            }
        }
        if gdk_pixbuf_loader_close(loader, &error) == 0 {
            let message = GLibError.take(error)
            if failure == nil { failure = message }
        }
        if probe.refused, let header = probe.header {
            throw .tooManyPixels(width: header.width, height: header.height, maxPixels: maxPixels)
        }
        if let failure { throw .undecodable(mediaType: photo.mediaType, reason: failure) }
        guard let loaded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw .undecodable(mediaType: photo.mediaType, reason: "the decoder gave no picture")
        }
        // A phone's photo stands the right way up only by its EXIF orientation.
        guard let upright = gdk_pixbuf_apply_embedded_orientation(loaded) else {
            throw .undecodable(mediaType: photo.mediaType, reason: "cannot turn it by its EXIF orientation")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(upright)) }
        let pixbuf = try scaledToFit(upright, box: box, mediaType: photo.mediaType)
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        return .image(try surface(of: pixbuf, embedJPEG: embedJPEG, mediaType: photo.mediaType))
    }

    /// Some loaders (PNG, WebP) give the picture whole: scaled here to what the box shows.
    private static func scaledToFit(_ pixbuf: OpaquePointer, box: (width: Double, height: Double), mediaType: String) throws(PhotoRefusal) -> OpaquePointer {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let factor = min(1, box.width / Double(width), box.height / Double(height))
        guard factor < 1 else { return g_object_ref(UnsafeMutableRawPointer(pixbuf)).map(OpaquePointer.init)! }
        let target = (max(1, Int((Double(width) * factor).rounded())), max(1, Int((Double(height) * factor).rounded())))
        guard let scaled = gdk_pixbuf_scale_simple(pixbuf, gint(target.0), gint(target.1), GDK_INTERP_BILINEAR) else {
            throw .undecodable(mediaType: mediaType, reason: "out of memory scaling it to \(target.0) × \(target.1)")
        }
        return scaled
    }

    /// The pixels as a cairo image (premultiplied, native-endian ARGB). An opaque photo for a
    /// PDF also carries its JPEG, which cairo embeds in place of the pixels.
    private static func surface(of pixbuf: OpaquePointer, embedJPEG: Bool, mediaType: String) throws(PhotoRefusal) -> PhotoImage {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let withAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels == (withAlpha ? 4 : 3), let source = gdk_pixbuf_read_pixels(pixbuf) else {
            throw .undecodable(mediaType: mediaType, reason: "the decoder gave pixels of an unexpected layout")
        }
        // The HEIF loader gives every picture an alpha channel; one that is opaque throughout is
        // drawn, and embedded as a JPEG, as the opaque picture it is.
        let hasAlpha = withAlpha && !(0..<height).allSatisfy { y in
            (0..<width).allSatisfy { x in source[y * rowstride + x * channels + 3] == 255 }
        }
        guard let surface = cairo_image_surface_create(hasAlpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let target = cairo_image_surface_get_data(surface)
        else {
            throw .undecodable(mediaType: mediaType, reason: "out of memory for a \(width) × \(height) image")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        cairo_surface_flush(surface)
        for y in 0..<height {
            let from = source + y * rowstride
            let to = UnsafeMutableRawPointer(target + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let pixel = from + x * channels
                var red = UInt32(pixel[0]), green = UInt32(pixel[1]), blue = UInt32(pixel[2])
                var alpha: UInt32 = 255
                if hasAlpha {
                    alpha = UInt32(pixel[3])
                    red = (red * alpha + 127) / 255
                    green = (green * alpha + 127) / 255
                    blue = (blue * alpha + 127) / 255
                }
                to[x] = alpha << 24 | red << 16 | green << 8 | blue
            }
        }
        cairo_surface_mark_dirty(surface)
        if embedJPEG && !hasAlpha { attachJPEG(of: pixbuf, to: surface) }
        return PhotoImage(surface: surface, width: width, height: height)
    }

    /// Without it cairo deflates the pixels; with it the PDF holds the JPEG as it is. A failure
    /// only costs size, so it is not an error.
    private static func attachJPEG(of pixbuf: OpaquePointer, to surface: OpaquePointer) {
        var buffer: UnsafeMutablePointer<gchar>? = nil
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>? = nil
        let saved = withCStrings(["quality"]) { keys in
            withCStrings([pdfJPEGQuality]) { values in
                gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", keys, values, &error)
            }
        }
        guard saved != 0, let buffer else {
            g_clear_error(&error)
            return
        }
        let status = cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, UnsafePointer(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self)),
                                                 UInt(size), g_free, UnsafeMutableRawPointer(buffer))
        if status != CAIRO_STATUS_SUCCESS { g_free(buffer) }
    }

    /// A NULL-terminated array of C strings for the duration of `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<gchar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}

/// What the size-prepared signal learnt, for the code that wrote the bytes.
private final class SizeProbe {
    let box: (width: Double, height: Double)
    let maxPixels: Int
    var header: (width: Int, height: Int)? = nil
    var refused = false

    init(box: (width: Double, height: Double), maxPixels: Int) {
        self.box = box
        self.maxPixels = maxPixels
    }
}
