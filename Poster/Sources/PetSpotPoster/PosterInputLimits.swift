import PetSpotFlow

/// How much of each member the input may hold: the daemon's own rules (FLOW.md), so that
/// whatever it stores fits, and anything longer is refused rather than cut off unseen.
public enum PosterInputLimits {
    /// The flow cuts a description to 500 characters.
    public static let descriptionCharacters = 500
    /// The flow's race is 1–100 characters.
    public static let raceCharacters = 100
    /// A species' name from a catalog file; the built-in ones are a few words.
    public static let speciesNameCharacters = 100
    /// RFC 5321's longest address, as the flow refuses longer ones.
    public static let emailCharacters = 254
    /// 15 digits, a `+` and the formatting a person might keep; a masked number is as long.
    public static let phoneCharacters = 32
    /// Report ids are UUIDs; room for other boxes' id schemes.
    public static let idCharacters = 200
    /// Lines of the description kept as they are; the rest run on in the last one, so that a
    /// description of 500 line breaks cannot push the page's other texts off it.
    public static let descriptionLines = 10
    /// The most photo bytes taken (256 MiB): the largest photo petspotd can be set to accept
    /// (`limits.maxPhotoBytes`).
    public static let photoBytes = 268_435_456
}
