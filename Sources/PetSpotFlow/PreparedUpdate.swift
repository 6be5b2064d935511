import PetSpotJSON

/// A `flow.update` whose slow part is already done: checking a photo's base64 takes a few
/// milliseconds for a large image, and decoding and hashing it into the spool more, so both
/// happen before the flow is taken, and applying the update stays a matter of microseconds.
public struct PreparedUpdate: Sendable {
    public let values: JSONObject
    /// The photo the update brings, checked but not decoded; nil without one.
    let upload: Result<Base64Photo, PhotoDecoder.Problem>?
    /// The photo decoded where it is kept (`keepingPhoto`).
    private let kept: Photo?

    /// Checks a photo in `values`, if there is one; everything else waits for `Flow.update`.
    public init(_ values: JSONObject, env: FlowEnvironment) {
        self.values = values
        self.kept = nil
        if case .object(let photo)? = values["photo"], let data = photo["data"], data.isString {
            let filename = photo["filename"]?.stringValue
            self.upload = Result { () throws(PhotoDecoder.Problem) in try Base64Photo(base64: data, filename: filename, maxBytes: env.maxPhotoBytes) }
        } else {
            self.upload = nil
        }
    }

    private init(values: JSONObject, upload: Result<Base64Photo, PhotoDecoder.Problem>?, kept: Photo?) {
        self.values = values
        self.upload = upload
        self.kept = kept
    }

    /// The same update with its accepted photo decoded by `keep` wherever that keeps it
    /// (`Base64Photo.decode` and `photo(keptIn:sha256:)`); an update without one is returned as
    /// it is.
    public func keepingPhoto<E: Error>(_ keep: (Base64Photo) throws(E) -> Photo) throws(E) -> PreparedUpdate {
        guard case .success(let upload)? = upload else { return self }
        return PreparedUpdate(values: values, upload: self.upload, kept: try keep(upload))
    }

    /// The photo for the flow: the kept one, or else decoded in memory.
    var photo: Result<Photo, PhotoDecoder.Problem>? {
        if let kept { return .success(kept) }
        return upload.map { $0.map { $0.decodedInMemory() } }
    }

    /// The size of the photo this update brings, if it decodes.
    public var photoByteCount: Int? {
        guard case .success(let upload)? = upload else { return nil }
        return upload.byteCount
    }

    /// Whether preparing does real work, so a caller can keep cheap updates on its own thread.
    public static func hasSlowPart(_ values: JSONObject) -> Bool {
        if case .object? = values["photo"] { return true }
        return false
    }
}
