import Foundation
import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Step 2: photo")
struct PhotoTests {
    typealias Image = Fixture.Image

    /// A photo checked and decoded in memory, as the flow gets one where no spool keeps it.
    private static func decode(base64: String, filename: String?, maxBytes: Int) throws(PhotoDecoder.Problem) -> Photo {
        try Base64Photo(base64: .string(base64), filename: filename, maxBytes: maxBytes).decodedInMemory()
    }

    @Test(
        "the type is decided by magic bytes",
        arguments: [
            (Image.jpeg(), "image/jpeg"),
            (Image.png(), "image/png"),
            (Image.webp(), "image/webp"),
            (Image.heif(brand: "heic"), "image/heic"),
            (Image.heif(brand: "heix"), "image/heic"),
            (Image.heif(brand: "heim"), "image/heic"),
            (Image.heif(brand: "heis"), "image/heic"),
            (Image.heif(brand: "hevc"), "image/heic-sequence"),
            (Image.heif(brand: "hevx"), "image/heic-sequence"),
            (Image.heif(brand: "mif1"), "image/heif"),
            (Image.heif(brand: "msf1"), "image/heif-sequence"),
        ])
    func magicBytes(bytes: [UInt8], mediaType: String) {
        #expect(PhotoDecoder.mediaType(of: bytes) == mediaType)
    }

    @Test(
        "anything else is not an image",
        arguments: [
            [],
            [0xFF, 0xD8],
            Array("GIF89a......".utf8),
            Array("%PDF-1.7 .....".utf8),
            Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8),
            [0, 0, 0, 0x18] + Array("ftypavif".utf8) + [0, 0, 0, 0],
            [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 0, 0],
            Array("hello, world".utf8),
        ] as [[UInt8]])
    func notAnImage(bytes: [UInt8]) {
        #expect(PhotoDecoder.mediaType(of: bytes) == nil)
        #expect(throws: PhotoDecoder.Problem.notAnImage) {
            try Self.decode(base64: Fixture.base64(bytes), filename: nil, maxBytes: 1024)
        }
    }

    @Test("a .jpg name with PNG bytes is a PNG")
    func nameIsOnlyAHint() throws {
        let photo = try Self.decode(base64: Fixture.base64(Image.png()), filename: "rex.jpg", maxBytes: 1024)
        #expect(photo.mediaType == "image/png")
        #expect(photo.filename == "rex.jpg")
    }

    @Test(
        "data that is not base64 is refused",
        arguments: ["not base64!", "////*", "A", "=AAA", "AA=A", "ÿØÿ"])
    func notBase64(text: String) {
        #expect(throws: PhotoDecoder.Problem.notBase64) {
            try Self.decode(base64: text, filename: nil, maxBytes: 1024)
        }
    }

    @Test("wrapped and unpadded base64 are accepted")
    func lenientBase64() throws {
        let bytes = Image.jpeg(count: 100)
        let padded = Fixture.base64(bytes)
        let wrapped = stride(from: 0, to: padded.count, by: 76).map { start in
            let from = padded.index(padded.startIndex, offsetBy: start)
            let to = padded.index(from, offsetBy: min(76, padded.count - start))
            return String(padded[from..<to])
        }.joined(separator: "\r\n")
        let unpadded = padded.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        #expect(padded != unpadded)
        for text in [wrapped, unpadded] {
            #expect(try Self.decode(base64: text, filename: nil, maxBytes: 1024).content.bytes() == bytes)
        }
    }

    @Test("the size limit applies to the decoded bytes: at the limit is accepted, one more is refused")
    func sizeLimit() throws {
        let limit = 64
        #expect(try Self.decode(base64: Fixture.base64(Image.jpeg(count: limit)), filename: nil, maxBytes: limit).byteCount == limit)
        #expect(throws: PhotoDecoder.Problem.tooLarge(limit: limit)) {
            try Self.decode(base64: Fixture.base64(Image.jpeg(count: limit + 1)), filename: nil, maxBytes: limit)
        }
    }

    @Test("the flow's size limit comes from the environment")
    func flowSizeLimit() throws {
        let env = FlowEnvironment(today: Fixture.today, species: Fixture.species, maxPhotoBytes: 64)
        var flow = try Fixture.flow(at: .photo)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.png(count: 64)))"}}"#, env: env)
        #expect(flow.values.photo?.byteCount == 64)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.jpeg(count: 65)))"}}"#, env: env)
        #expect(flow.values.photo == nil, "a refused photo replaces the previous one")
        #expect(flow.field(.photo, env: env)?["error"] == .string(StringCatalog.english.issue(.photo(.tooLarge(limit: 64)))))
    }

    @Test(
        "a refused upload is a field error and replaces the previous photo",
        arguments: [
            (#""%%%%""#, FieldIssue.photo(.notBase64)),
            (#""aGVsbG8sIHdvcmxk""#, .photo(.notAnImage)),
            (#""""#, .photo(.notAnImage)),
        ])
    func refusedUpload(data: String, issue: FieldIssue) throws {
        var flow = try Fixture.flow(at: .photo)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.jpeg()))", "filename": "rex.jpg"}}"#)
        try flow.update(#"{"photo": {"data": \#(data), "filename": "notes.txt"}}"#)
        #expect(flow.values.photo == nil)
        #expect(flow.field(.photo)?["display"] == "notes.txt")
        #expect(flow.error(of: .photo) == StringCatalog.english.issue(issue))
    }

    @Test("a filename with control characters is a field error; the photo is not taken")
    func filenameWithControls() throws {
        var flow = try Fixture.flow(at: .photo)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.jpeg()))", "filename": "rex\u001b]0;owned\u0007.jpg"}}"#)
        #expect(flow.values.photo == nil)
        #expect(flow.error(of: .photo) == StringCatalog.english.issue(.controlCharacters(allowsLineBreaks: false)))
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.jpeg()))", "filename": "rex\u009b.jpg"}}"#)
        #expect(flow.values.photo == nil)
        try flow.update(#"{"photo": {"data": "\#(Fixture.base64(Image.jpeg()))", "filename": "rex.jpg"}}"#)
        #expect(flow.values.photo?.filename == "rex.jpg")
    }

    @Test("the view shows type, size and SHA-256, never the data, and null removes the photo")
    func shownAsMetadata() throws {
        let bytes = Image.png(count: 12_595)
        let base64 = Fixture.base64(bytes)
        var flow = try Fixture.flow(at: .photo)
        try flow.update(#"{"photo": {"data": "\#(base64)", "filename": "/home/anna/Rex.PNG"}}"#)
        let sha = SHA256.hexHash(bytes)
        let field = try #require(flow.field(.photo))
        #expect(field["value"] == ["mediaType": "image/png", "bytes": 12_595, "sha256": .string(sha)])
        #expect(field["display"] == "image/png, 12.3 KiB")
        #expect(field["helper"] == .string("Rex.PNG, SHA-256 \(sha)"))
        #expect(flow.view()["values"]?["photo"] == field["value"])
        #expect(!JSONWriter.string(flow.view()).contains(String(base64.prefix(40))))

        try flow.update(#"{"photo": null}"#)
        #expect(flow.values.photo == nil)
        #expect(flow.field(.photo)?["value"] == .null)
        #expect(flow.field(.photo)?["helper"] == "JPEG, PNG, WebP or HEIC, up to 10 MiB.")
    }

    @Test("the photo is optional at Continue")
    func optional() throws {
        var flow = try Fixture.flow(at: .photo)
        #expect(try flow.continueStep(env: Fixture.env))
    }

    @Test("a photo decoded a part at a time into where it is kept: the same bytes and hash as in memory, in parts of bounded size")
    func decodedInParts() throws {
        // Three and a half chunks of text, wrapped as `base64` wraps it.
        let bytes = Image.jpeg(count: PhotoDecoder.chunkCharacters / 4 * 3 * 3 + 1000)
        let text = Data(bytes).base64EncodedString(options: .lineLength76Characters)
        let upload = try Base64Photo(base64: .string(text), filename: "dir/rex.jpg", maxBytes: bytes.count)
        #expect(upload.byteCount == bytes.count && upload.mediaType == "image/jpeg" && upload.filename == "rex.jpg")
        #expect(throws: PhotoDecoder.Problem.tooLarge(limit: bytes.count - 1)) {
            try Base64Photo(base64: .string(text), filename: nil, maxBytes: bytes.count - 1)
        }
        var kept: [UInt8] = []
        var largestPart = 0
        let sha256 = upload.decode { (part) throws(Never) in
            kept += part
            largestPart = max(largestPart, part.count)
        }
        #expect(kept == bytes)
        #expect(sha256 == SHA256.hexHash(bytes))
        #expect(largestPart <= PhotoDecoder.chunkCharacters / 4 * 3, "never more than one chunk at a time")
        #expect(upload.photo(keptIn: kept, sha256: sha256) == upload.decodedInMemory())

        // A failing write stops the decoding and is what the caller gets.
        struct Full: Error, Equatable {}
        var parts = 0
        #expect(throws: Full()) {
            try upload.decode { (_) throws(Full) in
                parts += 1
                if parts == 2 { throw Full() }
            }
        }
        #expect(parts == 2)
    }

    @Test("checking refuses as decoding does: not base64, one byte over the limit, not an image")
    func checkedBeforeDecoding() {
        let bytes = Image.png(count: 3000)
        let text = Data(bytes).base64EncodedString()
        #expect(throws: PhotoDecoder.Problem.notBase64) { try Base64Photo(base64: .string(text + "!"), filename: nil, maxBytes: 4000) }
        #expect(throws: PhotoDecoder.Problem.tooLarge(limit: bytes.count - 1)) {
            try Base64Photo(base64: .string(text), filename: nil, maxBytes: bytes.count - 1)
        }
        #expect(throws: PhotoDecoder.Problem.notAnImage) {
            try Base64Photo(base64: .string(Data("hello, world".utf8).base64EncodedString()), filename: nil, maxBytes: 4000)
        }
    }
}
