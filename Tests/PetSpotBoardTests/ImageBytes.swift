@testable import PetSpotBoard

/// Small real images written byte by byte, with the metadata a phone puts in them.
enum ImageBytes {
    static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
    static func littleEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    /// A TIFF structure (big-endian) whose IFD0 points at a GPS IFD: 52°13'46.85" N, 21°0'44.03" E.
    static let exifTIFF: [UInt8] = {
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + bigEndian32(8)
        // IFD0 at 8: one entry, GPSInfo (0x8825, LONG) → the GPS IFD at 26.
        tiff += bigEndian16(1) + bigEndian16(0x8825) + bigEndian16(4) + bigEndian32(1) + bigEndian32(26) + bigEndian32(0)
        // GPS IFD at 26: four entries, values from 80.
        tiff += bigEndian16(4)
        tiff += bigEndian16(0x0001) + bigEndian16(2) + bigEndian32(2) + Array("N".utf8) + [0, 0, 0]
        tiff += bigEndian16(0x0002) + bigEndian16(5) + bigEndian32(3) + bigEndian32(80)
        tiff += bigEndian16(0x0003) + bigEndian16(2) + bigEndian32(2) + Array("E".utf8) + [0, 0, 0]
        tiff += bigEndian16(0x0004) + bigEndian16(5) + bigEndian32(3) + bigEndian32(104)
        tiff += bigEndian32(0)
        tiff += gpsLatitude + gpsLongitude
        return tiff
    }()

    /// The RATIONAL triples of the position: what must never reach the public.
    static let gpsLatitude: [UInt8] = [52, 1, 13, 1, 4685, 100].flatMap { bigEndian32(UInt32($0)) }
    static let gpsLongitude: [UInt8] = [21, 1, 0, 1, 4403, 100].flatMap { bigEndian32(UInt32($0)) }

    static let xmp: [UInt8] = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><exif:GPSLatitude>52,13.78N</exif:GPSLatitude></x:xmpmeta>"#.utf8)

    // MARK: JPEG

    static func jpegSegment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, code] + bigEndian16(payload.count + 2) + payload
    }

    static let jfif = jpegSegment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
    static let exifSegment = jpegSegment(0xE1, Array("Exif\0\0".utf8) + exifTIFF)
    static let xmpSegment = jpegSegment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp)
    static let iccSegment = jpegSegment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + Array("a tiny profile".utf8))
    static let mpfSegment = jpegSegment(0xE2, Array("MP\0".utf8) + Array("MM".utf8) + [0, 0x2A])
    static let iptcSegment = jpegSegment(0xED, Array("Photoshop 3.0\08BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, 5] + Array("Kasia".utf8))
    static let adobeSegment = jpegSegment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1])
    static let comment = jpegSegment(0xFE, Array("shot at home, Kwiatowa 5".utf8))
    static let makerSegment = jpegSegment(0xEB, Array("HDR_GAIN".utf8))
    /// One quantisation table of ones.
    static let dqt = jpegSegment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
    /// Baseline, 8 bits, 8×8, one grey component.
    static let sof0 = jpegSegment(0xC0, [8] + bigEndian16(8) + bigEndian16(8) + [1, 1, 0x11, 0])
    /// One code of one bit ("0") for DC category 0 and one for AC end-of-block.
    static let dhtDC = jpegSegment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
    static let dhtAC = jpegSegment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
    static let sos = jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0])
    /// One block: DC difference 0 ("0"), end of block ("0"), padded with ones.
    static let scan: [UInt8] = [0x3F]

    /// A decodable 8×8 grey JPEG with no metadata.
    static let plainJPEG: [UInt8] = [0xFF, 0xD8] + jfif + dqt + sof0 + dhtDC + dhtAC + sos + scan + [0xFF, 0xD9]

    /// The same picture as a phone writes it: EXIF with GPS, XMP, IPTC, a comment, a maker
    /// segment, an MPF segment and a second picture with EXIF after the end.
    static let phoneJPEG: [UInt8] = [0xFF, 0xD8] + jfif + exifSegment + xmpSegment + iccSegment + mpfSegment + iptcSegment
        + adobeSegment + comment + dqt + makerSegment + sof0 + dhtDC + dhtAC + sos + scan + [0xFF, 0xD9]
        + [0xFF, 0xD8] + exifSegment + [0xFF, 0xD9]

    /// Restart intervals, stuffed bytes and fill bytes in the scan, an APPn between two scans.
    static let restartJPEG: [UInt8] = [0xFF, 0xD8] + dqt + sof0 + dhtDC + dhtAC + jpegSegment(0xDD, bigEndian16(1))
        + sos + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0xD1, 0x78]
        + [0xFF, 0xFF] + exifSegment + sos + [0x9A, 0xFF, 0x00] + [0xFF, 0xD9]

    /// The marker codes of a JPEG, in order: SOI, each segment, EOI (a scan's data skipped).
    static func jpegMarkers(_ bytes: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var offset = 0
        while offset + 1 < bytes.count {
            guard bytes[offset] == 0xFF else { offset += 1; continue }
            let code = bytes[offset + 1]
            if code == 0x00 || code == 0xFF || (0xD0...0xD7).contains(code) { offset += 2; continue }
            markers.append(code)
            if code == 0xD8 || code == 0xD9 { offset += 2; continue }
            offset += 2 + Int(bytes[offset + 2]) << 8 + Int(bytes[offset + 3])
        }
        return markers
    }

    // MARK: PNG

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(UInt32(data.count)) + body + bigEndian32(CRC32.checksum(body))
    }

    /// 1×1, 8-bit grey.
    static let ihdr = pngChunk("IHDR", bigEndian32(1) + bigEndian32(1) + [8, 0, 0, 0, 0])
    /// zlib, one stored deflate block of the row (filter 0, one black pixel), Adler-32 0x00020001.
    static let idat = pngChunk("IDAT", [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
    static let iend = pngChunk("IEND", [])
    static let gama = pngChunk("gAMA", bigEndian32(45455))
    static let phys = pngChunk("pHYs", bigEndian32(2835) + bigEndian32(2835) + [1])
    static let text = pngChunk("tEXt", Array("Comment\0secret: shot at home".utf8))
    static let ztxt = pngChunk("zTXt", Array("Author\0\0".utf8) + [0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
    static let itxt = pngChunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + xmp)
    static let time = pngChunk("tIME", bigEndian16(2026) + [11, 21, 13, 7, 27])
    static let exif = pngChunk("eXIf", exifTIFF)
    static let privateChunk = pngChunk("prVt", Array("private data".utf8))

    static let plainPNG = PNGMetadata.signature + ihdr + gama + phys + idat + iend
    static let phonePNG = PNGMetadata.signature + ihdr + gama + exif + text + phys + time + idat + ztxt + itxt + privateChunk + iend
        + Array("trailing bytes".utf8)

    /// (type, CRC valid) of every chunk, in order.
    static func pngChunks(_ bytes: [UInt8]) -> [(type: String, crcValid: Bool)] {
        var chunks: [(String, Bool)] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let body = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            let crc = bytes[(offset + 8 + length)..<(offset + 12 + length)]
            chunks.append((String(decoding: body.prefix(4), as: UTF8.self), Array(crc) == bigEndian32(CRC32.checksum(body))))
            offset += 12 + length
        }
        return chunks
    }

    // MARK: WebP

    static func webpChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        Array(type.utf8) + littleEndian32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func riff(_ chunks: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + littleEndian32(4 + chunks.count) + Array("WEBP".utf8) + chunks
    }

    /// A lossless 1×1 bitstream (13 bytes: odd, so its chunk is padded).
    static let vp8l = webpChunk("VP8L", [0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE, 0x07])
    static let iccp = webpChunk("ICCP", Array("a tiny profile".utf8) + [1])

    /// VP8X flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02; canvas 1×1.
    static func vp8x(flags: UInt8) -> [UInt8] { webpChunk("VP8X", [flags, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }

    static let plainWebP = riff(vp8l)
    static let phoneWebP = riff(vp8x(flags: 0x2C) + iccp + vp8l + webpChunk("EXIF", exifTIFF) + webpChunk("XMP ", xmp))
        + Array("after the RIFF".utf8)

    /// (FourCC, payload) of every top-level chunk, and whether the RIFF size is the file's.
    static func webpChunks(_ bytes: [UInt8]) -> (chunks: [(type: String, payload: [UInt8])], sizeRight: Bool) {
        let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        var chunks: [(String, [UInt8])] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            chunks.append((String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self), Array(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 8 + length + length % 2
        }
        return (chunks, size == bytes.count - 8 && offset == bytes.count)
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in the bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
