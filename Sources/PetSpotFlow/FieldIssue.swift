/// Why a field's value is refused or missing; the string catalog words it for the screen.
public enum FieldIssue: Sendable, Hashable {
    /// A required field is empty.
    case required(FlowField)
    case notADate
    case futureDate
    case unknownSpecies
    /// Race before a species is chosen.
    case speciesFirst
    case tooLong(maximum: Int)
    /// Control characters (escape sequences, bells, C1 codes) in free text, which would act on
    /// a terminal that shows it; line breaks and tabs are allowed where `allowsLineBreaks`.
    case controlCharacters(allowsLineBreaks: Bool)
    case unknownGender
    case invalidAge
    case notANumber
    case outOfRange(CoordinateParser.Axis)
    /// Only one of latitude and longitude is set; the other axis is the one missing.
    case missingCoordinate(CoordinateParser.Axis)
    case photo(PhotoDecoder.Problem)
    case phone(PhoneNumber.Problem)
    case email(EmailAddress.Problem)
    /// Neither a phone number nor an email address.
    case noContact
}
