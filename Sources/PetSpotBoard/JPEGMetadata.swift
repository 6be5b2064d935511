/// A JPEG without what a camera or an editor writes about the picture: EXIF (with its GPS
/// position), XMP, IPTC, comments, maker segments, and whatever follows the image (a second,
/// multi-picture image with its own EXIF, a phone's trailer). What draws the picture stays: the
/// tables, frame and scans byte for byte, JFIF, the ICC colour profile and Adobe's colour
/// transform.
enum JPEGMetadata {
    /// The cleaned file, or nil when it is not a whole JPEG: a marker where none can be, a
    /// segment running past the end, a frame or scan header whose length is not its
    /// components', a scan before a frame, no end of image.
    static func stripped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(bytes.count)
        var offset = 2
        var sawFrame = false, sawScan = false
        while true {
            // A marker: 0xFF, any number of 0xFF fill bytes, its code.
            guard offset < bytes.count, bytes[offset] == 0xFF else { return nil }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return nil }
            let code = bytes[offset]
            offset += 1
            switch code {
            case 0xD9:
                guard sawScan else { return nil }
                // Everything after the end of the image is dropped.
                out += [0xFF, 0xD9]
                return out
            case 0x01:
                out += [0xFF, 0x01]
                continue
            case 0x00, 0x02...0xBF, 0xD0...0xD8:
                // A stuffed zero, a reserved code, a restart outside a scan or a second start of image.
                return nil
            default:
                break
            }
            guard bytes.has(2, at: offset) else { return nil }
            let length = bytes.bigEndianUInt16(at: offset)
            guard length >= 2, bytes.has(length, at: offset) else { return nil }
            let segment = offset..<(offset + length)
            offset += length
            // A frame or scan header's length follows from its component count: one that does
            // not could carry other bytes past a reader.
            if isFrame(code) || code == 0xDA {
                guard length > 2 + (code == 0xDA ? 0 : 5) else { return nil }
                let count = Int(bytes[segment.lowerBound + (code == 0xDA ? 2 : 7)])
                let expected = code == 0xDA ? 6 + 2 * count : 8 + 3 * count
                guard count >= 1, length == expected else { return nil }
            }
            if keeps(code, payload: bytes[(segment.lowerBound + 2)..<segment.upperBound]) {
                out += [0xFF, code]
                out += bytes[segment]
            }
            if isFrame(code) { sawFrame = true }
            guard code == 0xDA else { continue }
            guard sawFrame else { return nil }
            sawScan = true
            guard let end = scanEnd(bytes, from: offset) else { return nil }
            out += bytes[offset..<end]
            offset = end
        }
    }

    /// Where the entropy-coded data after a start of scan ends: at the first marker that is
    /// neither a stuffed zero (0xFF00) nor a restart (0xFFD0-D7). Nil when the file ends first.
    private static func scanEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var offset = start
        while offset < bytes.count {
            guard bytes[offset] == 0xFF else {
                offset += 1
                continue
            }
            var next = offset + 1
            while next < bytes.count, bytes[next] == 0xFF { next += 1 }
            guard next < bytes.count else { return nil }
            if bytes[next] == 0x00 || (0xD0...0xD7).contains(bytes[next]) {
                offset = next + 1
            } else {
                return offset
            }
        }
        return nil
    }

    /// Segments kept: everything that is not an application segment or a comment, and of the
    /// application segments JFIF (APP0), the ICC profile (APP2) and Adobe's (APP14) by their
    /// identifiers; an APP2 of another kind (FlashPix, multi-picture) is dropped.
    private static func keeps(_ code: UInt8, payload: ArraySlice<UInt8>) -> Bool {
        switch code {
        case 0xE0: payload.starts(with: Array("JFIF\0".utf8))
        case 0xE2: payload.starts(with: Array("ICC_PROFILE\0".utf8))
        case 0xEE: payload.starts(with: Array("Adobe".utf8))
        case 0xE1...0xEF, 0xFE: false
        default: true
        }
    }

    /// Start of frame markers: SOF0-3, 5-7, 9-11, 13-15 (0xC4 DHT, 0xC8 JPG, 0xCC DAC are not).
    private static func isFrame(_ code: UInt8) -> Bool {
        (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
    }
}
