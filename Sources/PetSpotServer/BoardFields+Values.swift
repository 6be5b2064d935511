import PetSpotBoard
import PetSpotFlow
import PetSpotStore

extension BoardFields {
    /// What the board finds a report by, read from its values as the flow keeps them: the
    /// position (degrees × 100 000, both or neither), the chip number's digits as a lookup reads
    /// them, the species; and, when `photoBytes` are given (a photo being stored), its
    /// metadata-free copy described, or none when it cannot be cleaned.
    init(values: FlowValues, photoBytes: [UInt8]?) {
        let position = values.latitude.flatMap { latitude in values.longitude.map { (latitude, $0) } }
        let chip = values.chipNumber.map(ChipNumber.init(normalizing:)).flatMap { $0.isEmpty ? nil : $0.digits }
        self.init(latitude: position?.0.scaled, longitude: position?.1.scaled, chipDigits: chip, species: values.species,
                  publicPhoto: photoBytes.flatMap(Self.publicPhoto(of:)))
    }

    /// The description of the photo's metadata-free copy (`MetadataFreePhoto`), the one the
    /// public is shown; nil when it cannot be cleaned.
    static func publicPhoto(of photoBytes: [UInt8]) -> PhotoDescription? {
        MetadataFreePhoto(cleaning: photoBytes).map { PhotoDescription(mediaType: $0.mediaType, bytes: $0.data.count, sha256: $0.sha256) }
    }
}
