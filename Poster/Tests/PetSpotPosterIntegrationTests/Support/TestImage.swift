import CGdkPixbuf
import Foundation

/// Real pictures for the tests, made with gdk-pixbuf: a colour with a darker cross, so that a
/// test can find the photo on the rendered page.
enum TestImage {
    /// A colour no other part of a poster has.
    static let magenta: (UInt8, UInt8, UInt8) = (220, 40, 190)

    static func encoded(_ format: String, width: Int, height: Int, options: [String: String] = [:]) throws -> Data {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(width), gint(height)) else {
            throw PDFTools.Failure(description: "no pixbuf of \(width) × \(height)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!, rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        for y in 0..<height {
            for x in 0..<width {
                let pixel = pixels + y * rowstride + x * 3
                let cross = abs(x - width / 2) < max(1, width / 20) || abs(y - height / 2) < max(1, height / 20)
                let noise = UInt8(truncatingIfNeeded: (x &* 7 &+ y &* 13) % 9)
                (pixel[0], pixel[1], pixel[2]) = cross ? (60, 10, 50) : (magenta.0 - noise, magenta.1 + noise, magenta.2 - noise)
            }
        }
        var buffer: UnsafeMutablePointer<gchar>? = nil
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>? = nil
        var keys: [UnsafeMutablePointer<gchar>?] = options.keys.sorted().map { strdup($0) } + [nil]
        var values: [UnsafeMutablePointer<gchar>?] = options.keys.sorted().map { strdup(options[$0]!) } + [nil]
        defer { (keys + values).forEach { free($0) } }
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, format, &keys, &values, &error) != 0, let buffer else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "?"
            throw PDFTools.Failure(description: "cannot save a \(format): \(message)")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    static func jpeg(width: Int, height: Int, quality: Int = 90) throws -> Data {
        try encoded("jpeg", width: width, height: height, options: ["quality": "\(quality)"])
    }

    static func png(width: Int, height: Int) throws -> Data {
        try encoded("png", width: width, height: height)
    }

    static func webp(width: Int, height: Int) throws -> Data {
        try encoded("webp", width: width, height: height, options: ["quality": "90"])
    }

    /// A PNG that declares `width` × `height` in its header and holds almost nothing after it:
    /// a decoder that reads past the header fails on it, one that stops there never sees that.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        // One stored deflate block of a single row's filter byte: the rest of the picture is missing.
        let data: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", data) + chunk("IEND", []))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// A rendered page, to find the photo's colour on.
struct PageImage {
    let width: Int
    let height: Int
    private let pixels: [UInt8]
    private let rowstride: Int
    private let channels: Int

    init(png path: String) throws {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else {
            throw PDFTools.Failure(description: "cannot read \(path): \(error.map { String(cString: $0.pointee.message) } ?? "?")")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        width = Int(gdk_pixbuf_get_width(pixbuf))
        height = Int(gdk_pixbuf_get_height(pixbuf))
        rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        pixels = Array(UnsafeBufferPointer(start: gdk_pixbuf_read_pixels(pixbuf), count: Int(gdk_pixbuf_get_byte_length(pixbuf))))
    }

    /// The share of the page's pixels within `tolerance` of `colour`.
    func share(of colour: (UInt8, UInt8, UInt8), tolerance: Int = 40) -> Double {
        var count = 0
        for y in 0..<height {
            for x in 0..<width {
                let offset = y * rowstride + x * channels
                if abs(Int(pixels[offset]) - Int(colour.0)) <= tolerance && abs(Int(pixels[offset + 1]) - Int(colour.1)) <= tolerance
                    && abs(Int(pixels[offset + 2]) - Int(colour.2)) <= tolerance {
                    count += 1
                }
            }
        }
        return Double(count) / Double(width * height)
    }
}
