import PetSpotJSON
import PetSpotViews

@testable import PetSpotBoard
@testable import PetSpotFlow

/// A point from degrees as a person writes them ("52.22968"), rounded to 5 decimals as the flow does.
func point(_ latitude: String, _ longitude: String) -> GeoPoint {
    try! GeoPoint(latitude: DecimalLiteral(parsing: latitude)!, longitude: DecimalLiteral(parsing: longitude)!)
}

/// A report's stored `values` as the flow writes them, every field present.
func storedValues(
    chipNumber: String? = "616093900012345", species: String? = "dog", race: String? = "Beagle", gender: String? = "female",
    age: Int? = 4, disappearanceDate: String? = "2026-11-20", latitude: String? = "52.22968", longitude: String? = "21.01223",
    description: String? = "Red collar", phone: String? = "+48123456789", email: String? = "jan.kowalski@example.pl",
    photo: JSONValue = ["mediaType": "image/jpeg", "bytes": 2048, "sha256": .string(String(repeating: "a", count: 64))]
) -> JSONObject {
    [
        "chipNumber": .optional(chipNumber), "photo": photo, "disappearanceDate": .optional(disappearanceDate),
        "species": .optional(species), "race": .optional(race), "gender": .optional(gender), "age": .optional(age),
        "latitude": latitude.map { .number(JSONNumber(validatedLiteral: $0)) } ?? .null,
        "longitude": longitude.map { .number(JSONNumber(validatedLiteral: $0)) } ?? .null,
        "additionalDescription": .optional(description), "contactPhone": .optional(phone), "contactEmail": .optional(email),
    ]
}

let cleanPhoto = Animal.Photo(mediaType: "image/jpeg", bytes: 1900, sha256: String(repeating: "b", count: 64))

func storedAnimal(
    id: String = "r-1", status: Animal.Status = .missing, submittedAt: String = "2026-11-21T13:07:27Z",
    values: JSONObject = storedValues(), metadataFreePhoto: Animal.Photo? = cleanPhoto
) -> StoredAnimal {
    try! StoredAnimal(id: id, box: "kiosk-1", status: status, submittedAt: submittedAt, updatedAt: "2026-11-22T08:00:00Z",
                      version: 2, values: values, metadataFreePhoto: metadataFreePhoto)
}
