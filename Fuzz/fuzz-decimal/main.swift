import FuzzSupport
@testable import PetSpotFlow
import PetSpotJSON
import PetSpotViews

// Input: text, one number or two separated by "|", read as a JSON literal, as a lenient literal
// and as a person types it into a field; the first 8 bytes are also a Double's bits.
// Must hold: the three readings agree where they overlap and the strict one accepts exactly what
// the JSON parser takes for a number; the value is normalised and survives its own text;
// `exactInt`, `scaled` (rounding half away from zero, checked against exact bounds) and
// `compare` agree with the value and with each other; a finite Double's decimal reads back as it.

/// The value as a JSON literal without a fraction: "-1234e-2"; "0" for zero.
func canonicalText(_ d: DecimalLiteral) -> String {
    if d.isZero { return "0" }
    return (d.isNegative ? "-" : "") + String(decoding: d.digits.map { $0 + 0x30 }, as: UTF8.self) + "e\(d.exponent)"
}

func exact(_ text: String) -> DecimalLiteral {
    guard let value = DecimalLiteral(parsing: text) else { fatalError("not a JSON number: \(text)") }
    return value
}

/// Decimals `scaled` is checked at: whole numbers, one decimal, and a coordinate's five.
let decimalsChecked = [0, 1, Coordinate.decimals]

func checkReadings(of text: String) -> DecimalLiteral? {
    let strict = DecimalLiteral(parsing: text)
    let lenient = DecimalLiteral(parsing: text, lenient: true)
    let typed = DecimalLiteral(fieldText: text)
    if let strict { invariant(lenient == strict, "\(text): lenient \(String(describing: lenient)) is not strict \(strict)") }
    if let lenient { invariant(typed == lenient, "\(text): as typed \(String(describing: typed)) is not lenient \(lenient)") }

    let json = try? JSONParser.parse(text)
    if let strict {
        invariant(json == .number(JSONNumber(validatedLiteral: text)), "\(text): a decimal literal the JSON parser reads as \(String(describing: json))")
        invariant(JSONNumber(validatedLiteral: text).decimal == strict, "\(text): the JSON number's decimal differs")
    }
    let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    if case .number(let number)? = json, let first = text.utf8.first, let last = text.utf8.last,
       !whitespace.contains(first), !whitespace.contains(last) {
        invariant(strict != nil && number.literal == text, "\(text): a JSON number that is not a decimal literal")
    }
    return typed
}

func checkValue(_ d: DecimalLiteral) {
    invariant(d.digits.allSatisfy { $0 <= 9 }, "\(d): a digit out of 0...9")
    invariant(d.digits.first != 0 && d.digits.last != 0, "\(d): not normalised")
    if d.isZero { invariant(!d.isNegative && d.exponent == 0, "\(d): a zero with a sign or an exponent") }
    // An exponent of more than 10 digits saturates when read ("too large" or "too small" for
    // every rule), so only a value whose exponent has at most 10 digits survives its text.
    let text = canonicalText(d)
    if d.exponent.magnitude < 10_000_000_000 {
        invariant(DecimalLiteral(parsing: text) == d, "\(d): its text \(text) reads as another value")
    }
    invariant(d.compare(to: d) == 0, "\(d): not equal to itself")

    if let int = d.exactInt {
        invariant(DecimalLiteral(parsing: String(int)) == d, "\(d): exactInt \(int) is another value")
    } else {
        invariant(!d.isWhole || d.digits.count + d.exponent > 18, "\(d): a whole number of at most 18 digits without exactInt")
    }
    if let years = Age.years(from: d) {
        invariant(Age.years.contains(years) && years == d.exactInt, "\(d): age \(years)")
    }

    for decimals in decimalsChecked {
        let bound = exact("1e\(18 - decimals)")
        let magnitudeFits = d.isNegative ? d.compare(to: exact("-1e\(18 - decimals)")) > 0 : d.compare(to: bound) < 0
        guard let scaled = d.scaled(decimals: decimals) else {
            invariant(!magnitudeFits, "\(d): scaled to \(decimals) decimals is nil although it fits")
            continue
        }
        invariant(magnitudeFits, "\(d): scaled to \(decimals) decimals although it does not fit")
        let rounded = exact(fixedPointText(scaled, decimals: decimals))
        if d.exponent >= -decimals {
            invariant(rounded == d, "\(d): exact at \(decimals) decimals, yet scaled to \(scaled)")
        }
        // Half away from zero: scaled - 0.5 <= d < scaled + 0.5 units (mirrored below zero).
        if scaled.magnitude < 100_000_000_000_000_000 {
            let low = exact(fixedPointText(scaled * 10 - 5, decimals: decimals + 1))
            let high = exact(fixedPointText(scaled * 10 + 5, decimals: decimals + 1))
            let inside = d.isNegative
                ? d.compare(to: low) > 0 && d.compare(to: high) <= 0
                : d.compare(to: low) >= 0 && d.compare(to: high) < 0
            invariant(inside, "\(d): rounded to \(decimals) decimals as \(rounded)")
        }
    }
    if let coordinate = Coordinate(d) {
        invariant(coordinate.scaled == d.scaled(decimals: Coordinate.decimals), "\(d): coordinate \(coordinate.text)")
    }
    for axis in CoordinateParser.Axis.allCases {
        if let coordinate = try? CoordinateParser.parse(d, axis: axis) {
            invariant(CoordinateParser.isInRange(coordinate, axis: axis), "\(d): coordinate \(coordinate.text) out of range")
        }
    }
}

func checkOrder(_ a: DecimalLiteral, _ b: DecimalLiteral) {
    let order = a.compare(to: b)
    invariant(b.compare(to: a) == -order, "\(a) vs \(b): compare is not antisymmetric")
    invariant((order == 0) == (a == b), "\(a) vs \(b): compare 0 and equality disagree")
    // Conversion to Double never reverses an order, so a strict Double order is the true one.
    if let x = Double(canonicalText(a)), let y = Double(canonicalText(b)), x < y {
        invariant(order == -1, "\(a) vs \(b): compare says \(order), Doubles \(x) < \(y)")
    }
    if order <= 0 {
        for decimals in decimalsChecked {
            if let x = a.scaled(decimals: decimals), let y = b.scaled(decimals: decimals) {
                invariant(x <= y, "\(a) <= \(b) but scaled to \(decimals) decimals \(x) > \(y)")
            }
        }
    }
}

func checkDouble(_ input: UnsafeBufferPointer<UInt8>) {
    guard input.count >= 8 else { return }
    var bits: UInt64 = 0
    for byte in input.prefix(8) { bits = bits << 8 | UInt64(byte) }
    let x = Double(bitPattern: bits)
    guard let d = DecimalLiteral(x) else {
        invariant(!x.isFinite, "the finite Double \(x) has no decimal")
        return
    }
    invariant(x.isFinite, "the Double \(x) has a decimal")
    invariant(Double(canonicalText(d)) == x, "the Double \(x) became \(canonicalText(d))")
    checkValue(d)
}

fuzz { input in
    let text = String(decoding: input, as: UTF8.self)
    let parts = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let values = parts.map(checkReadings)
    for case let value? in values { checkValue(value) }
    if values.count == 2, let a = values[0], let b = values[1] { checkOrder(a, b) }
    checkDouble(input)
}
