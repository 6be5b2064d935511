import Foundation
import PetSpotJSON
import Testing

@Suite("the photo on the poster", .serialized)
struct PosterPhotoTests {
    @Test("a 12-megapixel JPEG is on the page, embedded as a JPEG at the page's resolution, not whole")
    func jpeg() throws {
        let photo = try TestImage.jpeg(width: 4000, height: 3000)
        let poster = try PosterRun.make(Documents.publicAnimal(["photo": Documents.photo("image/jpeg", photo)]), ["--paper", "a4"])
        #expect(poster.succeeded, "\(poster.result)")
        let images = try PDFTools.images(poster.output)
        #expect(images.count == 1, "\(images)")
        // The photo box is at most the A4 page's 523 points wide: 1453 pixels at 200 ppi.
        #expect(images.allSatisfy { $0.width <= 1453 && $0.height <= 1453 && $0.encoding == "jpeg" }, "\(images)")
        #expect(images.allSatisfy { abs(Double($0.width) / Double($0.height) - 4.0 / 3.0) < 0.01 }, "aspect kept: \(images)")
        let page = try PageImage(png: PDFTools.rasterize(poster.output, dpi: 50))
        #expect(page.share(of: TestImage.magenta) > 0.08, "the photo covers a good part of the page")
        let size = try FileManager.default.attributesOfItem(atPath: poster.output)[.size] as! Int
        #expect(size < 600_000, "a poster of \(photo.count) bytes of photo is \(size) bytes")
    }

    @Test("PNG and WebP photos are shown too; without a photo, a placeholder says so")
    func otherFormats() throws {
        for (type, data) in [("image/png", try TestImage.png(width: 300, height: 400)), ("image/webp", try TestImage.webp(width: 300, height: 400))] {
            let poster = try PosterRun.make(Documents.publicAnimal(["photo": Documents.photo(type, data)]))
            #expect(poster.succeeded, "\(type): \(poster.result)")
            #expect(try PageImage(png: PDFTools.rasterize(poster.output, dpi: 50)).share(of: TestImage.magenta) > 0.05, "\(type)")
        }
        let none = try PosterRun.make(Documents.publicAnimal(), ["--locale", "en"])
        #expect(try PDFTools.text(none.output).contains("No photo"))
        #expect(try PageImage(png: PDFTools.rasterize(none.output, dpi: 50)).share(of: TestImage.magenta) == 0)
    }

    @Test("a HEIC photo (heif-gdk-pixbuf) is shown, and embedded as a JPEG: the loader's alpha channel is opaque throughout")
    func heic() throws {
        let folder = try ScratchFolder()
        try TestImage.png(width: 400, height: 300).write(to: URL(fileURLWithPath: folder.path("photo.png")))
        let encoded = try run("/usr/bin/heif-enc", ["--quality", "80", "--output", folder.path("photo.heic"), folder.path("photo.png")])
        try #require(encoded.status == 0, "heif-enc: \(encoded)")
        let heic = try Data(contentsOf: URL(fileURLWithPath: folder.path("photo.heic")))
        let poster = try PosterRun.make(Documents.publicAnimal(["photo": Documents.photo("image/heic", heic)]))
        #expect(poster.succeeded, "\(poster.result)")
        #expect(try PDFTools.images(poster.output).map(\.encoding) == ["jpeg"])
        #expect(try PageImage(png: PDFTools.rasterize(poster.output, dpi: 50)).share(of: TestImage.magenta) > 0.05)
    }

    @Test("a photo whose decoder is not installed: the poster is made, and says in the photo's place that it cannot be shown")
    func noDecoder() throws {
        let folder = try ScratchFolder()
        // gdk-pixbuf reads its module list from here: an empty one leaves only the built-in JPEG and PNG.
        try Data().write(to: URL(fileURLWithPath: folder.path("loaders.cache")))
        let document = Documents.publicAnimal(["photo": Documents.photo("image/webp", try TestImage.webp(width: 64, height: 64))])
        let poster = try PosterRun.make(document, ["--locale", "en"], environment: ["GDK_PIXBUF_MODULE_FILE": folder.path("loaders.cache")])
        #expect(poster.succeeded, "\(poster.result)")
        let text = try PDFTools.text(poster.output).replacingOccurrences(of: "\n", with: " ")
        #expect(text.contains("This photo (image/webp) cannot be shown here"), "\(text)")
    }

    @Test("a picture declaring 20000 × 20000 pixels is refused from its header, exit 65, not decoded")
    func tooManyPixels() throws {
        let poster = try PosterRun.make(Documents.publicAnimal(["photo": Documents.photo("image/png", TestImage.pngHeader(width: 20000, height: 20000))]))
        #expect(poster.result.status == 65, "\(poster.result)")
        #expect(poster.result.stderr.contains("20000 × 20000 pixels (400.0 megapixels) is more than the 67.1 megapixels"), "\(poster.result)")
        #expect(poster.result.stderr.contains("it was not decoded"))
        #expect(!FileManager.default.fileExists(atPath: poster.output))
        // Within the bound, the same few bytes go to the decoder, which makes what it can of them.
        let small = try PosterRun.make(Documents.publicAnimal(["photo": Documents.photo("image/png", TestImage.pngHeader(width: 200, height: 200))]))
        #expect(small.succeeded, "\(small.result)")
    }

    @Test("--max-pixels at its edge: 100 × 100 is taken at 10000, refused at 9999")
    func maxPixelsEdge() throws {
        let document = Documents.publicAnimal(["photo": Documents.photo("image/png", try TestImage.png(width: 100, height: 100))])
        #expect(try PosterRun.make(document, ["--max-pixels", "10000"]).succeeded)
        let refused = try PosterRun.make(document, ["--max-pixels", "9999"])
        #expect(refused.result.status == 65, "\(refused.result)")
        #expect(refused.result.stderr.contains("100 × 100 pixels (10000 pixels) is more than the 9999 pixels a poster decodes"), "\(refused.result)")
    }
}
