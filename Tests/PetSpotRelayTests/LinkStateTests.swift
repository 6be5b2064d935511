import PetSpotRelay
import Testing

@Suite("The relay's link state")
struct LinkStateTests {
    @Test("the state log moves once per change of category, not once per retry or wording")
    func linkState() {
        var state = LinkState.unknown
        func moved(_ next: LinkState) -> Bool { state.move(to: next) }
        #expect(moved(.unreachable(reason: "the connection broke", kind: "unreachable")))
        #expect(!moved(.unreachable(reason: "Connection refused", kind: "unreachable")))
        #expect(state == .unreachable(reason: "Connection refused", kind: "unreachable"))
        #expect(moved(.unreachable(reason: "TLS refused: …", kind: "tls")))
        #expect(!moved(.unreachable(reason: "TLS refused: …", kind: "tls")))
        #expect(moved(.reachable))
        #expect(!moved(.reachable))
    }
}
