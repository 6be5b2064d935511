import PetSpotFlow
import PetSpotViews

/// A photo fit for the public: the same picture with nothing else in it (no EXIF GPS position,
/// no camera serial, no editor's notes), and its SHA-256 as the flow writes it.
///
/// JPEG, PNG and WebP are cleaned; HEIC/HEIF is not (its metadata sits in boxes that other
/// boxes point into by offset: it cannot be cut out safely here) and is not shown to the
/// public. Anything that does not parse whole is not shown either.
public struct MetadataFreePhoto: Sendable, Hashable {
    /// "image/jpeg", "image/png" or "image/webp", from the bytes themselves.
    public let mediaType: String
    public let data: [UInt8]
    /// 64 lowercase hex digits of `data`.
    public let sha256: String

    /// Nil when the photo's format cannot be cleaned or the bytes are not a whole image of it.
    public init?(cleaning bytes: [UInt8]) {
        guard let mediaType = PhotoDecoder.mediaType(of: Array(bytes.prefix(16))) else { return nil }
        let cleaned: [UInt8]? = switch mediaType {
        case "image/jpeg": JPEGMetadata.stripped(bytes)
        case "image/png": PNGMetadata.stripped(bytes)
        case "image/webp": WebPMetadata.stripped(bytes)
        default: nil
        }
        guard let cleaned else { return nil }
        self.mediaType = mediaType
        self.data = cleaned
        self.sha256 = SHA256.hexHash(cleaned)
    }

    /// `{mediaType, bytes, sha256}` as an animal shows it.
    public var photo: Animal.Photo {
        Animal.Photo(mediaType: mediaType, bytes: data.count, sha256: sha256)
    }
}
