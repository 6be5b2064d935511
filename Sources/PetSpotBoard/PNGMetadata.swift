/// A PNG without its text and metadata chunks (eXIf, tEXt, zTXt, iTXt, tIME, and any chunk this
/// file does not know to be part of the picture: a private chunk may carry anything). What
/// draws it stays: the critical chunks, the colour chunks and APNG's animation.
enum PNGMetadata {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Chunks kept, besides the critical four.
    static let kept: Set<String> = [
        // Colour and how to render it.
        "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCV", "cLLI", "bKGD", "tRNS", "hIST", "pHYs", "sPLT",
        // Animation (APNG): without them an animated PNG shows its first frame only.
        "acTL", "fcTL", "fdAT",
    ]
    static let critical: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND"]

    /// The cleaned file, or nil when it is not a whole PNG: a chunk running past the end, a bad
    /// CRC, a critical chunk this file does not know, IHDR not first, no IEND. Bytes after
    /// IEND are dropped.
    static func stripped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.starts(with: signature) else { return nil }
        var out = signature
        out.reserveCapacity(bytes.count)
        var offset = signature.count
        var first = true
        while true {
            guard bytes.has(8, at: offset) else { return nil }
            let length = bytes.bigEndianUInt32(at: offset)
            guard length <= 0x7FFF_FFFF, bytes.has(12 + Int(length), at: offset) else { return nil }
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy(isLetter) else { return nil }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let chunk = offset..<(offset + 12 + Int(length))
            let crc = bytes.bigEndianUInt32(at: chunk.upperBound - 4)
            guard CRC32.checksum(bytes[(offset + 4)..<(chunk.upperBound - 4)]) == crc else { return nil }
            offset = chunk.upperBound
            guard first == (type == "IHDR") else { return nil }
            first = false
            // An uppercase first letter: a reader must understand the chunk to draw the picture.
            let isCritical = typeBytes.first.map { $0 & 0x20 == 0 } ?? false
            if isCritical {
                guard critical.contains(type) else { return nil }
                out += bytes[chunk]
            } else if kept.contains(type) {
                out += bytes[chunk]
            }
            if type == "IEND" { return out }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
