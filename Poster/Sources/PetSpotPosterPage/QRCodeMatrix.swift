import CQREncode
#if canImport(Glibc)
import Glibc
#endif

/// The modules of a QR code, made by libqrencode: error correction level M (15 % of the code
/// may be torn or stained), the smallest version that holds the text.
struct QRCodeMatrix: Sendable, Equatable {
    /// Modules a side.
    let size: Int
    /// Row by row, true for a dark module.
    let dark: [Bool]

    /// White modules the code needs around it to be found (ISO/IEC 18004).
    static let quietZone = 4

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(encoding text: String) throws(Failure) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            let reason = errno == ERANGE ? "the text is too long for a QR code" : String(cString: strerror(errno))
            throw Failure(description: "cannot make a QR code of \(text): \(reason)")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        dark = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    func isDark(row: Int, column: Int) -> Bool { dark[row * size + column] }
}
