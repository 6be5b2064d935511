import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Photos without metadata")
struct MetadataFreePhotoTests {
    typealias B = ImageBytes

    @Test("a phone's JPEG loses EXIF GPS, XMP, IPTC, comments, maker and multi-picture segments and what follows the image")
    func jpeg() throws {
        let photo = try #require(MetadataFreePhoto(cleaning: B.phoneJPEG))
        #expect(photo.mediaType == "image/jpeg")
        #expect(B.jpegMarkers(photo.data) == [0xD8, 0xE0, 0xE2, 0xEE, 0xDB, 0xC0, 0xC4, 0xC4, 0xDA, 0xD9])
        #expect(photo.data == [0xFF, 0xD8] + B.jfif + B.iccSegment + B.adobeSegment + B.dqt + B.sof0 + B.dhtDC + B.dhtAC + B.sos + B.scan + [0xFF, 0xD9])
        for secret in [Array("Exif".utf8), B.gpsLatitude, B.gpsLongitude, B.xmp, Array("Kasia".utf8), Array("Kwiatowa".utf8),
                       Array("HDR_GAIN".utf8), Array("MP\0".utf8)] {
            #expect(!photo.data.contains(bytes: secret))
        }
        #expect(B.phoneJPEG.contains(bytes: B.gpsLatitude))
    }

    @Test("a JPEG with nothing to remove is served as it is, with the flow's SHA-256 of it")
    func plainJPEG() throws {
        let photo = try #require(MetadataFreePhoto(cleaning: B.plainJPEG))
        #expect(photo.data == B.plainJPEG)
        #expect(photo.sha256 == SHA256.hexHash(B.plainJPEG))
        #expect(photo.photo == .init(mediaType: "image/jpeg", bytes: B.plainJPEG.count, sha256: SHA256.hexHash(B.plainJPEG)))
    }

    @Test("scans are copied byte for byte: stuffed bytes, restarts and fill bytes; an APPn between scans goes")
    func jpegScans() throws {
        let photo = try #require(MetadataFreePhoto(cleaning: B.restartJPEG))
        #expect(B.jpegMarkers(photo.data) == [0xD8, 0xDB, 0xC0, 0xC4, 0xC4, 0xDD, 0xDA, 0xDA, 0xD9])
        #expect(photo.data.contains(bytes: [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0xD1, 0x78]))
        #expect(photo.data.contains(bytes: [0x9A, 0xFF, 0x00, 0xFF, 0xD9]))
        #expect(!photo.data.contains(bytes: B.gpsLatitude))
    }

    @Test(
        "JPEGs that do not parse whole are not served",
        arguments: [
            ("no end of image", [0xFF, 0xD8] + B.jfif + B.dqt + B.sof0 + B.sos + B.scan),
            ("a scan before a frame", [0xFF, 0xD8] + B.dqt + B.sos + B.scan + [0xFF, 0xD9]),
            ("an end before any scan", [0xFF, 0xD8] + B.dqt + B.sof0 + [0xFF, 0xD9]),
            ("a segment past the end", [0xFF, 0xD8] + [0xFF, 0xE1, 0x40, 0x00] + Array("Exif".utf8)),
            ("a length under 2", [0xFF, 0xD8] + [0xFF, 0xDB, 0x00, 0x01] + B.sof0 + B.sos + B.scan + [0xFF, 0xD9]),
            ("a byte where a marker must be", [0xFF, 0xD8, 0x00] + B.sof0 + B.sos + B.scan + [0xFF, 0xD9]),
            ("a reserved marker", [0xFF, 0xD8] + B.jpegSegment(0x20, [1, 2]) + B.sof0 + B.sos + B.scan + [0xFF, 0xD9]),
            ("a second start of image", [0xFF, 0xD8, 0xFF, 0xD8] + B.sof0 + B.sos + B.scan + [0xFF, 0xD9]),
            ("a restart outside a scan", [0xFF, 0xD8, 0xFF, 0xD0] + B.sof0 + B.sos + B.scan + [0xFF, 0xD9]),
            ("a scan header longer than its components", [0xFF, 0xD8] + B.sof0 + B.jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0, 9, 9]) + B.scan + [0xFF, 0xD9]),
            ("a scan header of no component", [0xFF, 0xD8] + B.sof0 + B.jpegSegment(0xDA, [0, 0, 63, 0]) + B.scan + [0xFF, 0xD9]),
            ("a frame header longer than its components", [0xFF, 0xD8] + B.jpegSegment(0xC0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0, 7]) + B.sos + B.scan + [0xFF, 0xD9]),
            ("an empty frame header", [0xFF, 0xD8] + B.jpegSegment(0xC2, []) + B.sos + B.scan + [0xFF, 0xD9]),
        ] as [(String, [UInt8])])
    func brokenJPEG(what: String, bytes: [UInt8]) {
        #expect(MetadataFreePhoto(cleaning: bytes) == nil, "\(what)")
    }

    @Test("a PNG loses eXIf, tEXt, zTXt, iTXt, tIME, private chunks and what follows IEND; CRCs stay valid")
    func png() throws {
        let photo = try #require(MetadataFreePhoto(cleaning: B.phonePNG))
        #expect(photo.mediaType == "image/png")
        let chunks = B.pngChunks(photo.data)
        #expect(chunks.map(\.type) == ["IHDR", "gAMA", "pHYs", "IDAT", "IEND"])
        #expect(chunks.allSatisfy { $0.crcValid })
        #expect(photo.data == B.plainPNG)
        for secret in [B.gpsLatitude, Array("secret".utf8), B.xmp, Array("private".utf8), Array("trailing".utf8)] {
            #expect(!photo.data.contains(bytes: secret))
        }
    }

    @Test("the PNG's CRC-32 is ISO 3309's")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(B.iend == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    }

    @Test(
        "PNGs that do not parse whole are not served",
        arguments: [
            ("no IEND", PNGMetadata.signature + B.ihdr + B.idat),
            ("IHDR not first", PNGMetadata.signature + B.gama + B.ihdr + B.idat + B.iend),
            ("no IHDR", PNGMetadata.signature + B.idat + B.iend),
            ("a second IHDR", PNGMetadata.signature + B.ihdr + B.ihdr + B.idat + B.iend),
            ("a bad CRC", PNGMetadata.signature + B.ihdr + Array(B.idat.dropLast()) + [0] + B.iend),
            ("a bad CRC on a dropped chunk", PNGMetadata.signature + B.ihdr + Array(B.text.dropLast()) + [0] + B.idat + B.iend),
            ("an unknown critical chunk", PNGMetadata.signature + B.ihdr + B.pngChunk("ABCD", [1]) + B.idat + B.iend),
            ("a type that is not letters", PNGMetadata.signature + B.ihdr + B.pngChunk("ab1d", [1]) + B.idat + B.iend),
            ("a chunk past the end", PNGMetadata.signature + B.ihdr + B.bigEndian32(1000) + Array("IDAT".utf8) + [1, 2, 3]),
            ("a length over 2^31-1", PNGMetadata.signature + B.ihdr + B.bigEndian32(0x8000_0000) + Array("IDAT".utf8)),
        ] as [(String, [UInt8])])
    func brokenPNG(what: String, bytes: [UInt8]) {
        #expect(MetadataFreePhoto(cleaning: bytes) == nil, "\(what)")
    }

    @Test("a WebP loses its EXIF and XMP chunks and their VP8X flags; the RIFF size is right")
    func webp() throws {
        let photo = try #require(MetadataFreePhoto(cleaning: B.phoneWebP))
        #expect(photo.mediaType == "image/webp")
        let (chunks, sizeRight) = B.webpChunks(photo.data)
        #expect(sizeRight)
        #expect(chunks.map(\.type) == ["VP8X", "ICCP", "VP8L"])
        #expect(chunks.first?.payload.first == 0x20)
        #expect(photo.data == B.riff(B.vp8x(flags: 0x20) + B.iccp + B.vp8l))
        for secret in [B.gpsLatitude, B.xmp, Array("after".utf8)] {
            #expect(!photo.data.contains(bytes: secret))
        }
    }

    @Test("a simple WebP is served as it is; anything after its bitstream goes")
    func simpleWebP() throws {
        #expect(MetadataFreePhoto(cleaning: B.plainWebP)?.data == B.plainWebP)
        let tagged = B.riff(B.vp8l + B.webpChunk("EXIF", B.exifTIFF) + B.vp8x(flags: 0x08))
        #expect(MetadataFreePhoto(cleaning: tagged)?.data == B.plainWebP)
    }

    @Test("an animated WebP keeps its frames, without what WebP does not define inside them")
    func animatedWebP() throws {
        let frameHeader = [UInt8](repeating: 0, count: 16)
        let frame = B.webpChunk("ANMF", frameHeader + B.vp8l + B.webpChunk("XYZW", Array("where".utf8)))
        let anim = B.webpChunk("ANIM", [0, 0, 0, 0, 0, 0])
        let bytes = B.riff(B.vp8x(flags: 0x0A) + anim + frame + B.webpChunk("EXIF", B.exifTIFF))
        let photo = try #require(MetadataFreePhoto(cleaning: bytes))
        let (chunks, sizeRight) = B.webpChunks(photo.data)
        #expect(sizeRight)
        #expect(chunks.map(\.type) == ["VP8X", "ANIM", "ANMF"])
        #expect(chunks.first?.payload.first == 0x02)
        #expect(chunks.last?.payload == frameHeader + B.vp8l)
        #expect(!photo.data.contains(bytes: Array("where".utf8)))
    }

    @Test(
        "WebPs that do not parse whole are not served",
        arguments: [
            ("a RIFF size past the end", Array("RIFF".utf8) + B.littleEndian32(1000) + Array("WEBP".utf8) + B.vp8l),
            ("an odd RIFF size", Array("RIFF".utf8) + B.littleEndian32(4 + B.vp8l.count - 1) + Array("WEBP".utf8) + B.vp8l),
            ("a chunk past the RIFF", Array("RIFF".utf8) + B.littleEndian32(4 + 8 + 2) + Array("WEBP".utf8) + Array("VP8L".utf8) + B.littleEndian32(13) + [0x2F, 0]),
            ("no image", B.riff(B.vp8x(flags: 0x20) + B.iccp)),
            ("a short VP8X", B.riff(B.webpChunk("VP8X", [0, 0, 0]) + B.vp8l)),
            ("a simple file not starting with its bitstream", B.riff(B.iccp + B.vp8l)),
            ("a frame shorter than its header", B.riff(B.vp8x(flags: 0x02) + B.webpChunk("ANMF", [0, 0, 0, 0]))),
        ] as [(String, [UInt8])])
    func brokenWebP(what: String, bytes: [UInt8]) {
        #expect(MetadataFreePhoto(cleaning: bytes) == nil, "\(what)")
    }

    @Test(
        "HEIC/HEIF and what is no image are not served",
        arguments: [
            [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8),
            [0, 0, 0, 0x18] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8),
            Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0],
            [],
            [0xFF],
        ] as [[UInt8]])
    func notServed(bytes: [UInt8]) {
        #expect(MetadataFreePhoto(cleaning: bytes) == nil)
    }

    static let samples: [[UInt8]] = [B.phoneJPEG, B.restartJPEG, B.plainJPEG, B.phonePNG, B.phoneWebP]

    @Test("cleaning a cleaned photo changes nothing", arguments: samples)
    func idempotent(bytes: [UInt8]) throws {
        let once = try #require(MetadataFreePhoto(cleaning: bytes))
        #expect(MetadataFreePhoto(cleaning: once.data) == once)
    }

    /// Every cut of every sample, and every byte of them set to values that matter to a parser:
    /// never a crash, a cut file is never served (its end is missing), and what is served is
    /// already clean. (An altered byte may turn metadata into what parses as image data, such as
    /// a marker into a stuffed 0xFF00 inside a scan: only a decoder could tell, so no test says
    /// the metadata's bytes are gone from every altered file.)
    @Test("truncated and altered photos never crash, and a truncated one is never served", arguments: samples)
    func truncations(bytes: [UInt8]) {
        // The samples with nothing after their end: any shorter prefix lacks EOI, IEND or RIFF bytes.
        let endsAtImage = bytes != B.phoneJPEG && bytes != B.phonePNG && bytes != B.phoneWebP
        for count in 0..<bytes.count {
            let cleaned = MetadataFreePhoto(cleaning: Array(bytes.prefix(count)))
            if endsAtImage { #expect(cleaned == nil, "prefix of \(count) bytes") }
        }
        for index in bytes.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF] {
                var altered = bytes
                altered[index] = value
                if let cleaned = MetadataFreePhoto(cleaning: altered) {
                    #expect(MetadataFreePhoto(cleaning: cleaned.data) == cleaned, "byte \(index) set to \(value)")
                }
            }
        }
    }
}
