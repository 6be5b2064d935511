// The base64 decoders a photo could go through, on the same 12 MiB of text: which one
// Base64Decoding had to beat (docs/PERFORMANCE.md, "Taking in a photo"). Built and run by
// Benchmarks/run-base64.sh together with Sources/PetSpotFlow/Base64Decoding.swift.
import CLibCrypto
import FoundationEssentials

let photoBytes = 9 * 1024 * 1024
var generator = SystemRandomNumberGenerator()
let photo = (0..<photoBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
let text = Data(photo).base64EncodedString()
let textBytes = Array(text.utf8)
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 9

func best(_ name: String, _ body: () -> [UInt8]) {
    var times: [Duration] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        let decoded = body()
        times.append(ContinuousClock.now - start)
        precondition(decoded.count >= photo.count && decoded.prefix(photo.count).elementsEqual(photo), "\(name) decoded wrongly")
    }
    let fastest = times.min()!
    let seconds = Double(fastest.components.seconds) + Double(fastest.components.attoseconds) / 1e18
    let milliseconds = (seconds * 10_000).rounded() / 10
    let rate = Int((Double(textBytes.count) / seconds / 1e6).rounded())
    print(name + String(repeating: " ", count: max(1, 46 - name.count)) + "\(milliseconds) ms   \(rate) MB/s of text")
}

best("Base64Decoding (one pass, from the string)") {
    var text = text
    return text.withUTF8 { try! Base64Decoding.decode($0, maxBytes: photoBytes) }
}
best("FoundationEssentials Data(base64Encoded:)") {
    [UInt8](Data(base64Encoded: Data(textBytes))!)
}
best("OpenSSL EVP_DecodeBlock (no white space)") {
    [UInt8](unsafeUninitializedCapacity: textBytes.count / 4 * 3) { output, count in
        count = Int(textBytes.withUnsafeBufferPointer { EVP_DecodeBlock(output.baseAddress, $0.baseAddress, Int32($0.count)) })
    }
}
