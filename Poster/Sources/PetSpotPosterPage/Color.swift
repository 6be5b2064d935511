/// An sRGB colour, 0–1 a channel.
struct Color: Sendable, Equatable {
    let red: Double, green: Double, blue: Double

    static let black = Color(red: 0, green: 0, blue: 0)
    static let white = Color(red: 1, green: 1, blue: 1)
    /// The headline's band: a red that stays red on a cheap printer and in grey scale is dark
    /// enough for white text.
    static let alarm = Color(red: 0.78, green: 0.11, blue: 0.11)
    static let muted = Color(red: 0.35, green: 0.35, blue: 0.35)
    static let placeholder = Color(red: 0.93, green: 0.93, blue: 0.93)
    static let rule = Color(red: 0.6, green: 0.6, blue: 0.6)
}
