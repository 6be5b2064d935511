/// A photo stored before the board whose metadata-free copy is still to be described: the
/// report's id and the photo's bytes, for `ReportStore.describePublicPhoto`.
public struct UndescribedPhoto: Sendable, Hashable {
    public let reportID: String
    public let photo: StoredPhoto

    public init(reportID: String, photo: StoredPhoto) {
        self.reportID = reportID
        self.photo = photo
    }
}
