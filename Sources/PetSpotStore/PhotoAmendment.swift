/// What an amendment does to a report's photo.
public enum PhotoAmendment: Sendable, Hashable {
    case keep
    case replace(StoredPhoto)
    case remove
}
