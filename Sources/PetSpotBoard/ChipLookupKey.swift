import PetSpotFlow

/// The chip number `animals.lookup` searches for, read as step 1 reads one: the decimal digits
/// of any script, as ASCII, at most 15, every other character dropped ("616-093-900 012 345",
/// full-width digits). Equal to a report's stored `chipNumber` when it is the same chip.
public struct ChipLookupKey: Sendable, Hashable {
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing in the text reads as a digit: no chip could have that number.
        case noDigits

        public var description: String {
            "chipNumber has no digits: a chip number is read from its decimal digits (hyphens and spaces are left out)"
        }
    }

    /// ASCII digits, 1...15 of them.
    public let digits: String

    public init(reading chipNumber: String) throws(Problem) {
        let chip = ChipNumber(normalizing: chipNumber)
        guard !chip.isEmpty else { throw .noDigits }
        digits = chip.digits
    }
}
