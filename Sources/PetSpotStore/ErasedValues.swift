import PetSpotJSON

/// What erasure leaves of a report's `values`: the species and the date of disappearance, which
/// say nothing of a person; every other member stays, null, so the object keeps its shape.
enum ErasedValues {
    /// The members erasure keeps (FLOW.md's field names).
    static let kept: Set<String> = ["species", "disappearanceDate"]

    /// The erased form of a stored `values` object, as compact JSON. Text that is not a JSON
    /// object (a tampered file) keeps nothing: erasure never fails for what it erases.
    static func of(_ valuesJSON: String) -> String {
        guard let object = (try? JSONParser.parse(valuesJSON))?.objectValue else { return "{}" }
        let members = object.members.map { member in
            (key: member.key, value: kept.contains(member.key) ? member.value : JSONValue.null)
        }
        return JSONWriter.string(.object(JSONObject(members: members)))
    }
}
