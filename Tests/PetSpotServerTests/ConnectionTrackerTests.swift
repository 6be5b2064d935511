#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@testable import PetSpotServer
import Testing

@Suite("Connections tracked for the drain at a stop")
struct ConnectionTrackerTests {
    /// A client connection to `path`, its descriptor left open until the test closes it.
    static func connect(to path: String) throws -> CInt {
        let fd = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(status == 0, "connect: \(String(cString: strerror(errno)))")
        return fd
    }

    /// NIO sets an accepted connection up on its own event loop, then hops back to the
    /// listening socket's loop. A drain that missed a connection still being set up let the
    /// stop shut the event loops down under that hop: "Cannot schedule tasks on an EventLoop
    /// that has already shut down" (SystemdTests, once in a full run).
    @Test("the drain waits for a connection accepted before the stop and still being set up")
    func drainWaitsForConnectionBeingSetUp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-tracker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let tracker = ConnectionTracker(maxConnections: 10)
        // The child initializer of the connection being set up, held until the test lets it go.
        let (settingUp, enteredSetup) = AsyncStream.makeStream(of: EventLoopPromise<Void>.self)
        let released = NIOLockedValueBox(false)

        let server = try await ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptedConnections(tracker: tracker))
                }
            }
            .childChannelInitializer { channel in
                let setUp = channel.eventLoop.makePromise(of: Void.self)
                enteredSetup.yield(setUp)
                return setUp.futureResult
            }
            .bind(unixDomainSocketPath: directory.appendingPathComponent("s.sock").path).get()
        let client = try Self.connect(to: directory.appendingPathComponent("s.sock").path)
        defer { close(client) }
        var setups = settingUp.makeAsyncIterator()
        let setUp = try #require(await setups.next())

        // The stop, as ServerService does it: no more accepting, then the drain.
        try await server.close()
        let drained = tracker.drainAll()
        #expect(tracker.acceptedCount == 1, "the connection being set up is not known to the drain")
        // The setup goes on while the drain waits; the drain may end only once NIO has closed
        // the connection, which it does after the setup, as the listening socket is closed.
        let release = Task {
            released.withLockedValue { $0 = true }
            setUp.succeed(())
        }
        #expect(await drained.first(where: { true }) != nil)
        #expect(released.withLockedValue { $0 }, "the drain ended while a connection was still being set up")
        await release.value
        try await group.shutdownGracefully()
    }

    @Test("with no connection at all the drain ends at once")
    func drainWithNothingOpen() async {
        let tracker = ConnectionTracker(maxConnections: 10)
        #expect(await tracker.drainAll().first(where: { true }) != nil)
        #expect(tracker.isDraining)
    }
}
