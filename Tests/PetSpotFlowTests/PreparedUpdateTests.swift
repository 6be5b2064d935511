import PetSpotJSON
import Testing

@testable import PetSpotFlow

@Suite("Prepared updates")
struct PreparedUpdateTests {
    @Test("a photo decoded beforehand is stored exactly as one decoded in the update")
    func preparedPhoto() throws {
        let values: JSONObject = ["photo": ["data": .string(Fixture.base64(Fixture.Image.png(count: 64))), "filename": "a.jpg"]]
        var direct = try Fixture.flow(at: .photo)
        try direct.update(values, env: Fixture.env)
        var prepared = try Fixture.flow(at: .photo)
        try prepared.update(PreparedUpdate(values, env: Fixture.env), env: Fixture.env)
        #expect(prepared.values == direct.values)
        #expect(prepared.values.photo?.mediaType == "image/png")
    }

    @Test("a refused photo prepared beforehand is still a field error, not a protocol error")
    func preparedRefusal() throws {
        let values: JSONObject = ["photo": ["data": "not base64!"]]
        var flow = try Fixture.flow(at: .photo)
        try flow.update(PreparedUpdate(values, env: Fixture.env), env: Fixture.env)
        #expect(flow.values.photo == nil)
        let field = flow.view(env: Fixture.env).json["screen"]?["fields"]?.arrayValue?.first { $0["name"] == "photo" }
        #expect(field?["error"]?.stringValue != nil)
    }

    @Test("only a photo object counts as slow work", arguments: [
        (["photo": ["data": "AAAA"]] as JSONObject, true),
        (["photo": nil], false),
        (["chipNumber": "1"], false),
    ] as [(JSONObject, Bool)])
    func slowPart(values: JSONObject, slow: Bool) {
        #expect(PreparedUpdate.hasSlowPart(values) == slow)
    }
}
