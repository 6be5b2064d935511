import PetSpotJSON

/// A `flow.update` whose slow part is already done: decoding and hashing a photo takes up to a
/// few hundred milliseconds for a large image, so it happens before the flow is taken, and
/// applying the update stays a matter of microseconds.
public struct PreparedUpdate: Sendable {
    public let values: JSONObject
    let photo: Result<Photo, PhotoDecoder.Problem>?

    /// Decodes a photo in `values`, if there is one; everything else waits for `Flow.update`.
    public init(_ values: JSONObject, env: FlowEnvironment) {
        self.values = values
        if case .object(let photo)? = values["photo"], case .string(let data)? = photo["data"] {
            let filename = photo["filename"]?.stringValue
            self.photo = Result { () throws(PhotoDecoder.Problem) -> Photo in
                try PhotoDecoder.decode(base64: data, filename: filename, maxBytes: env.maxPhotoBytes)
            }
        } else {
            self.photo = nil
        }
    }

    private init(values: JSONObject, photo: Result<Photo, PhotoDecoder.Problem>?) {
        self.values = values
        self.photo = photo
    }

    /// The same update with its accepted photo's bytes kept where `keep` puts them
    /// (`Photo.keptIn`); an update without one is returned as it is.
    public func keepingPhoto<E: Error>(_ keep: (Photo) throws(E) -> any PhotoContent) throws(E) -> PreparedUpdate {
        guard case .success(let photo)? = photo else { return self }
        return PreparedUpdate(values: values, photo: .success(photo.keptIn(try keep(photo))))
    }

    /// The size of the photo this update brings, if it decoded.
    public var photoByteCount: Int? {
        guard case .success(let photo)? = photo else { return nil }
        return photo.byteCount
    }

    /// Whether preparing does real work, so a caller can keep cheap updates on its own thread.
    public static func hasSlowPart(_ values: JSONObject) -> Bool {
        if case .object? = values["photo"] { return true }
        return false
    }
}
