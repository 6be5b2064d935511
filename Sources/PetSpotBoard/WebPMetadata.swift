/// A WebP without EXIF and XMP: those chunks go, the extended header stops announcing them and
/// the RIFF size is made right. Every other chunk that draws the picture stays as it is: the
/// extended header, ICC profile, animation and its frames, alpha, the VP8/VP8L bitstreams. A
/// chunk WebP does not define, or one inside a frame, is dropped: it may carry anything.
enum WebPMetadata {
    /// VP8X flags (first byte of its payload): EXIF and XMP metadata present.
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    static let kept: Set<String> = ["VP8X", "ICCP", "ANIM", "ANMF", "ALPH", "VP8 ", "VP8L"]
    /// What a frame (ANMF) may hold after its 16-byte header.
    static let keptInFrame: Set<String> = ["ALPH", "VP8 ", "VP8L"]
    static let images: Set<String> = ["VP8 ", "VP8L", "ANMF"]

    /// The cleaned file, or nil when it is not a whole WebP: a RIFF size past the end, a chunk
    /// past its container, an extended header too short or not first, no image. Bytes after the
    /// RIFF's end are dropped.
    static func stripped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) else { return nil }
        let riffSize = Int(bytes.littleEndianUInt32(at: 4))
        guard riffSize >= 4, riffSize % 2 == 0, bytes.has(riffSize, at: 8) else { return nil }
        guard let chunks = chunks(bytes, in: 12..<(8 + riffSize)), let firstChunk = chunks.first else { return nil }
        guard chunks.contains(where: { images.contains($0.type) }) else { return nil }
        var body: [UInt8] = Array("WEBP".utf8)
        body.reserveCapacity(riffSize)
        // A simple file is its one bitstream chunk; anything after it is not WebP's and goes.
        let simple = firstChunk.type != "VP8X"
        if simple {
            guard firstChunk.type == "VP8 " || firstChunk.type == "VP8L" else { return nil }
            append(type: firstChunk.type, payload: bytes[firstChunk.payload], to: &body)
        }
        for (index, chunk) in chunks.enumerated() where !simple {
            switch chunk.type {
            case "VP8X":
                guard index == 0, chunk.payload.count >= 10 else { return nil }
                var payload = Array(bytes[chunk.payload])
                payload[0] &= ~(exifFlag | xmpFlag)
                append(type: chunk.type, payload: payload[...], to: &body)
            case "ANMF":
                guard chunk.payload.count >= 16, let frame = Self.chunks(bytes, in: (chunk.payload.lowerBound + 16)..<chunk.payload.upperBound)
                else { return nil }
                var payload = Array(bytes[chunk.payload.lowerBound..<(chunk.payload.lowerBound + 16)])
                for inner in frame where keptInFrame.contains(inner.type) {
                    append(type: inner.type, payload: bytes[inner.payload], to: &payload)
                }
                append(type: chunk.type, payload: payload[...], to: &body)
            case let type where kept.contains(type):
                append(type: type, payload: bytes[chunk.payload], to: &body)
            default:
                continue
            }
        }
        var out: [UInt8] = Array("RIFF".utf8)
        out.reserveCapacity(8 + body.count)
        out.appendLittleEndian(UInt32(body.count))
        out += body
        return out
    }

    struct Chunk {
        let type: String
        let payload: Range<Int>
    }

    /// The chunks that fill `range` exactly (each padded to an even size); nil if one runs past it.
    private static func chunks(_ bytes: [UInt8], in range: Range<Int>) -> [Chunk]? {
        var chunks: [Chunk] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else { return nil }
            let type = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(bytes.littleEndianUInt32(at: offset + 4))
            let padded = size + size % 2
            guard padded <= range.upperBound - offset - 8 else { return nil }
            chunks.append(Chunk(type: type, payload: (offset + 8)..<(offset + 8 + size)))
            offset += 8 + padded
        }
        return chunks
    }

    private static func append(type: String, payload: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out += Array(type.utf8)
        out.appendLittleEndian(UInt32(payload.count))
        out += payload
        if payload.count % 2 == 1 { out.append(0) }
    }
}
