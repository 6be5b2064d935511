import PetSpotJSON

extension DecimalLiteral {
    /// A number as a person types it into a field: " 52.1 ", "+3", ".5", and a decimal comma
    /// ("52,1"), which is how Polish and many other locales write it.
    init?(fieldText: String) {
        let text = fieldText.trimming(.whitespacesAndNewlines)
        if let value = DecimalLiteral(parsing: text, lenient: true) {
            self = value
            return
        }
        let commas = text.utf8.count(where: { $0 == UInt8(ascii: ",") })
        guard commas == 1, !text.contains("."),
            let value = DecimalLiteral(parsing: text.replacing(",", with: "."), lenient: true)
        else { return nil }
        self = value
    }
}
