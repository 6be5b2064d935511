/// A rectangle on the page, in points from its top left corner.
struct Rect: Sendable, Equatable {
    var x: Double, y: Double, width: Double, height: Double

    var maxX: Double { x + width }
    var maxY: Double { y + height }
}
