import PetSpotFlow
import PetSpotJSON
import PetSpotViews

extension PosterDocument {
    /// Reads the input document, naming the member at fault in the error. Members it does not
    /// know are left alone, so that an `animal` of `animals.get` can be passed as it is (its
    /// `box`, `status`, `distanceKm`, times and `version` are not printed).
    public init(json bytes: [UInt8]) throws(PosterInputError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw PosterInputError("", "the input is not JSON: \(error)")
        }
        try self.init(json: value)
    }

    public init(json value: JSONValue) throws(PosterInputError) {
        guard let object = value.objectValue else {
            throw PosterInputError("", "the input must be a JSON object, not \(value.typeName)")
        }
        let document = MemberReader(object: object, path: "")

        guard let id = try document.text("id", maxCharacters: PosterInputLimits.idCharacters) else {
            throw document.missing("id")
        }
        let locale = try document.text("locale").map { (text: String) throws(PosterInputError) -> FlowLocale in
            guard let locale = FlowLocale(rawValue: text) else {
                throw document.error("locale", "must be \"en\" or \"pl\", not \"\(text)\"")
            }
            return locale
        }
        guard let species = try document.text("species", maxCharacters: SpeciesCatalog.maxIDLength) else {
            throw document.missing("species")
        }
        let gender = try document.text("gender").map { (text: String) throws(PosterInputError) -> Gender in
            guard let gender = Gender(rawValue: text) else {
                throw document.error("gender", "must be \"female\" or \"male\", not \"\(text)\"")
            }
            return gender
        }
        let age = try document.number("age").map { (number: JSONNumber) throws(PosterInputError) -> Int in
            guard let years = Age.years(from: number.decimal) else {
                throw document.error("age", "must be whole years from \(Age.years.lowerBound) to \(Age.years.upperBound), not \(number.literal)")
            }
            return years
        }
        let date = try document.text("disappearanceDate").map { (text: String) throws(PosterInputError) -> CalendarDate in
            guard let date = CalendarDate(iso: text) else {
                throw document.error("disappearanceDate", "must be a date written YYYY-MM-DD, not \"\(text)\"")
            }
            return date
        }
        let chip = try document.text("chipNumber").map { (text: String) throws(PosterInputError) -> String in
            guard text.count <= ChipNumber.maxDigits, text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
                throw document.error("chipNumber", "must be up to \(ChipNumber.maxDigits) digits 0-9 as the daemon stores it, not \"\(text)\"")
            }
            return text
        }
        guard let contactReader = try document.object("contact") else { throw document.missing("contact") }
        let contact = Contact(
            phone: try contactReader.text("phone", maxCharacters: PosterInputLimits.phoneCharacters),
            email: try contactReader.text("email", maxCharacters: PosterInputLimits.emailCharacters))
        if contact.phone == nil && contact.email == nil {
            throw document.error("contact", "has neither a phone nor an email: a poster nobody can answer is no use")
        }

        self.init(
            id: id, locale: locale, species: species,
            speciesName: try document.text("speciesName", maxCharacters: PosterInputLimits.speciesNameCharacters),
            race: try document.text("race", maxCharacters: PosterInputLimits.raceCharacters),
            gender: gender, age: age, disappearanceDate: date,
            lastSeen: try document.object("lastSeen").map(Self.position),
            description: try document.text("description", maxCharacters: PosterInputLimits.descriptionCharacters, lineBreaks: true),
            contact: contact, chipNumber: chip,
            photo: try document.object("photo").map(Self.photo))
    }

    private static func position(_ reader: MemberReader) throws(PosterInputError) -> Position {
        func coordinate(_ key: String, bound: Int) throws(PosterInputError) -> String {
            guard let number = try reader.number(key) else { throw reader.missing(key) }
            guard Self.isPlainDecimal(number.literal) else {
                throw reader.error(key, "must be written as a plain decimal number like 52.22968, not \(number.literal)")
            }
            guard number.decimal.compare(to: -bound) >= 0, number.decimal.compare(to: bound) <= 0 else {
                throw reader.error(key, "must be from -\(bound) to \(bound), not \(number.literal)")
            }
            return number.literal
        }
        return Position(latitude: try coordinate("latitude", bound: 90), longitude: try coordinate("longitude", bound: 180))
    }

    /// `-?digits(.digits)?`: what the daemon writes, and what a geo: URI may carry as it is.
    static func isPlainDecimal(_ literal: String) -> Bool {
        var scalars = Substring(literal).unicodeScalars[...]
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    private static func photo(_ reader: MemberReader) throws(PosterInputError) -> Photo {
        guard let mediaType = try reader.text("mediaType") else { throw reader.missing("mediaType") }
        guard let data = reader.object["data"], !data.isNull else { throw reader.missing("data") }
        guard case .string(let text) = data.copyingLongString else {
            throw reader.error("data", "must be the photo's bytes in base64, not \(data.typeName)")
        }
        var utf8 = text
        let decoded = utf8.withUTF8 { (buffer: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Base64Decoding.Failure> in
            do throws(Base64Decoding.Failure) {
                return .success(try Base64Decoding.decode(buffer, maxBytes: PosterInputLimits.photoBytes))
            } catch {
                return .failure(error)
            }
        }
        let bytes: [UInt8]
        switch decoded {
        case .success(let decodedBytes): bytes = decodedBytes
        case .failure(.invalid): throw reader.error("data", "is not base64")
        case .failure(.tooLarge):
            throw reader.error("data", "is more than \(PosterInputLimits.photoBytes) bytes (256 MiB), the largest photo petspotd takes")
        }
        guard let actual = PhotoDecoder.mediaType(of: Array(bytes.prefix(16))) else {
            throw reader.error("data", "is not a JPEG, PNG, WebP or HEIC image")
        }
        guard actual == mediaType else {
            throw reader.error("mediaType", "says \(mediaType), but the data is \(actual)")
        }
        return Photo(mediaType: mediaType, bytes: bytes)
    }
}

/// Reads the members of one object of the input, naming each by its path.
struct MemberReader {
    let object: JSONObject
    let path: String

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ problem: String) -> PosterInputError { PosterInputError(name(key), problem) }

    func missing(_ key: String) -> PosterInputError { error(key, "is missing") }

    /// A string member; absent, null or empty (after trimming) is nil. Control characters are
    /// refused (line breaks and tabs too, unless `lineBreaks`): they would print as boxes.
    func text(_ key: String, maxCharacters: Int = 100, lineBreaks: Bool = false) throws(PosterInputError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw error(key, "must be a string or null, not \(value.typeName)") }
        let trimmed = text.trimming(.whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        guard trimmed.count <= maxCharacters else {
            throw error(key, "has \(trimmed.count) characters; at most \(maxCharacters) are printed")
        }
        let allowed: Set<Unicode.Scalar> = lineBreaks ? ["\n", "\r", "\t"] : []
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            throw error(key, lineBreaks ? "holds control characters other than line breaks and tabs" : "holds control characters")
        }
        return trimmed
    }

    /// A number member; absent or null is nil.
    func number(_ key: String) throws(PosterInputError) -> JSONNumber? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .number(let number) = value else { throw error(key, "must be a number or null, not \(value.typeName)") }
        return number
    }

    /// An object member; absent or null is nil.
    func object(_ key: String) throws(PosterInputError) -> MemberReader? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let members = value.objectValue else { throw error(key, "must be an object or null, not \(value.typeName)") }
        return MemberReader(object: members, path: name(key))
    }
}
