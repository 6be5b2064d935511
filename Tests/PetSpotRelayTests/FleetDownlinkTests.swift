import PetSpotJSON
import PetSpotProtocol
import Testing

@testable import PetSpotRelay

/// A page of the central feed as the relay hands it to its daemon: rows read from PostgreSQL's
/// text, and calls that fit the daemon's line limit, each with the position it completes.
@Suite("The fleet's feed, page by page")
struct FleetDownlinkTests {
    static func item(_ id: String, photoBytes: Int? = nil) -> RelayFleetPut.Item {
        RelayFleetPut.Item(reportId: id, box: "kiosk-x", status: .missing, version: 1, submittedAt: "2026-11-21T10:00:00Z",
                           updatedAt: "2026-11-21T10:00:00Z", values: ["species": "dog"],
                           photo: photoBytes.map { RelayFleetPut.Photo(mediaType: "image/png", base64: String(repeating: "A", count: $0)) })
    }

    @Test("own rows only move the cursor; every other row goes in order, each call ending at the position of its last row, the last at the page's end")
    func callsInOrder() {
        let rows = [
            FleetFeed.Row(position: 3, item: Self.item("a")),
            FleetFeed.Row(position: 4, item: nil),
            FleetFeed.Row(position: 7, item: Self.item("b")),
            FleetFeed.Row(position: 9, item: nil),
        ]
        let calls = FleetDownlink.calls(rows, maxLineBytes: 1 << 20)
        #expect(calls == [FleetDownlink.Call(cursor: 9, items: [Self.item("a"), Self.item("b")])])
        #expect(FleetDownlink.calls([FleetFeed.Row(position: 5, item: nil)], maxLineBytes: 1 << 20) == [FleetDownlink.Call(cursor: 5, items: [])])
    }

    @Test("a page larger than a line is cut into calls that fit; a report whose photo alone would not fit comes without it")
    func cutToTheLine() {
        let limit = 64 * 1024
        let rows = [
            FleetFeed.Row(position: 1, item: Self.item("a", photoBytes: 40_000)),
            FleetFeed.Row(position: 2, item: Self.item("b", photoBytes: 40_000)),
            FleetFeed.Row(position: 3, item: nil),
            FleetFeed.Row(position: 4, item: Self.item("c", photoBytes: 100_000)),
        ]
        let calls = FleetDownlink.calls(rows, maxLineBytes: limit)
        // b does not fit beside a; c, without its photo, fits beside b.
        #expect(calls.map(\.cursor) == [1, 4])
        #expect(calls.map { $0.items.map(\.reportId) } == [["a"], ["b", "c"]])
        #expect(calls[1].items[0].photo != nil)
        #expect(calls[1].items[1].photo == nil && calls[1].items[1].values == ["species": "dog"])
        for call in calls {
            #expect(JSONWriter.string(.object(RelayFleetPut.Params(cursor: call.cursor, reports: call.items).json)).utf8.count < limit)
        }
    }

    @Test("rows as PostgreSQL gives them: own, listed with a photo, gone, and a status no box writes, which is gone whatever its values")
    func rowsRead() throws {
        #expect(try FleetFeed.row(["5", "t", nil, nil, nil, nil, nil, nil, nil, nil, nil]) == FleetFeed.Row(position: 5, item: nil))
        let listed = try FleetFeed.row(["6", "f", "r-1", "kiosk-x", "missing", "2", "2026-11-21T10:00:00Z", "2026-11-21T11:00:00Z",
                                        #"{"species":"dog"}"#, "image/png", "iVBORw0K"])
        #expect(listed.item?.isListed == true)
        #expect(listed.item?.photo == RelayFleetPut.Photo(mediaType: "image/png", base64: "iVBORw0K"))
        #expect(listed.item?.version == 2)
        let gone = try FleetFeed.row(["7", "f", "r-2", "kiosk-x", "found", "3", "2026-11-21T10:00:00Z", "2026-11-21T11:00:00Z", nil, nil, nil])
        #expect(gone.item?.isListed == false && gone.item?.status == .found)
        let odd = try FleetFeed.row(["8", "f", "r-3", "kiosk-x", "lost", "1", "2026-11-21T10:00:00Z", "2026-11-21T11:00:00Z",
                                     #"{"species":"dog"}"#, nil, nil])
        #expect(odd.item?.isListed == false)
        #expect(throws: CentralDatabaseError.self) { _ = try FleetFeed.row([nil, "f"]) }
    }
}
