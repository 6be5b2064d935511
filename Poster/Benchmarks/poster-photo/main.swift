import CGdkPixbuf
#if canImport(Glibc)
import Glibc
#endif

// A JPEG of a given size in pixels and about a given size in bytes, for Benchmarks/run-poster.sh:
// a smooth picture with grain, the grain's strength searched until the file is within 3 % of
// the bytes asked for (a phone's photo of fur or grass is as hard to compress).
//   poster-photo WIDTH HEIGHT BYTES OUT.jpg

func fail(_ message: String, _ code: Int32) -> Never {
    let line = "poster-photo: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

/// An RGB picture of gdk-pixbuf's, painted and encoded again and again.
struct GrainyPicture {
    let pixbuf: OpaquePointer
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(width), gint(height)) else {
            fail("no memory for \(width) × \(height)", 70)
        }
        (self.pixbuf, self.width, self.height) = (pixbuf, width, height)
    }

    func paint(grain: Int) {
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!, rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        var state: UInt32 = 2_463_534_242
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let noise = Int(state % UInt32(2 * grain + 1)) - grain
                let pixel = pixels + y * rowstride + x * 3
                pixel[0] = UInt8(clamping: 120 + 100 * x / width + noise)
                pixel[1] = UInt8(clamping: 90 + 80 * y / height + noise)
                pixel[2] = UInt8(clamping: 60 + noise / 2)
            }
        }
    }

    func jpeg() -> [UInt8] {
        var buffer: UnsafeMutablePointer<gchar>? = nil
        var size: gsize = 0
        var keys: [UnsafeMutablePointer<gchar>?] = [strdup("quality"), nil]
        var values: [UnsafeMutablePointer<gchar>?] = [strdup("92"), nil]
        defer { (keys + values).forEach { free($0) } }
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", &keys, &values, nil) != 0, let buffer else {
            fail("cannot encode the JPEG", 70)
        }
        defer { g_free(buffer) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: Int(size)))
    }
}

func main() {
    let arguments = CommandLine.arguments
    guard arguments.count == 5, let width = Int(arguments[1]), let height = Int(arguments[2]), let target = Int(arguments[3]) else {
        fail("usage: poster-photo WIDTH HEIGHT BYTES OUT.jpg", 64)
    }
    let picture = GrainyPicture(width: width, height: height)
    var (low, high) = (0, 128)
    var best: [UInt8] = []
    while low <= high {
        let grain = (low + high) / 2
        picture.paint(grain: grain)
        let bytes = picture.jpeg()
        if best.isEmpty || abs(bytes.count - target) < abs(best.count - target) { best = bytes }
        if abs(bytes.count - target) * 100 <= target * 3 { break }
        if bytes.count < target { low = grain + 1 } else { high = grain - 1 }
    }
    guard let file = fopen(arguments[4], "wb"), fwrite(best, 1, best.count, file) == best.count, fclose(file) == 0 else {
        fail("cannot write \(arguments[4])", 73)
    }
    print("\(arguments[4]): \(width) × \(height), \(best.count) bytes")
}

main()
