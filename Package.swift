// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "petspotd",
    products: [
        .executable(name: "petspotd", targets: ["petspotd"]),
        .executable(name: "petspot", targets: ["petspot"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // Pure JSON values: a strict parser with limits and a writer. No I/O.
        .target(name: "PetSpotJSON"),
        // The report flow: steps, fields, rules, formatting, screens, string catalogs. No I/O.
        .target(name: "PetSpotFlow", dependencies: ["PetSpotJSON", "PetSpotProtocol"]),
        // JSON-RPC 2.0 envelopes, error kinds, parameter readers, the flow view, and the way sizes
        // and chip numbers are written for people: what daemon and client both read and write.
        .target(name: "PetSpotProtocol", dependencies: ["PetSpotJSON"]),
        // Thin POSIX edges the programs share: whole reads and writes on a descriptor, a named thread.
        .target(name: "PetSpotSystem"),
        // libgps, the gpsd client library, behind a small shim (Sources/CGPS/petspot_gps.h).
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        // The location service and its providers.
        .target(name: "PetSpotLocation", dependencies: [
            "PetSpotFlow", "PetSpotProtocol", "PetSpotSystem", "CGPS",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Durable reports in SQLite.
        .target(name: "PetSpotStore", dependencies: [
            "PetSpotSystem",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The daemon: configuration, flow registry, NIO pipeline, method dispatch.
        .target(name: "PetSpotServer", dependencies: [
            "PetSpotJSON", "PetSpotFlow", "PetSpotProtocol", "PetSpotLocation", "PetSpotStore", "PetSpotSystem",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // A small blocking client over the Unix socket, for the CLI, tools and tests.
        .target(name: "PetSpotClient", dependencies: ["PetSpotJSON", "PetSpotProtocol"]),
        .executableTarget(name: "petspotd", dependencies: [
            "PetSpotServer", "PetSpotFlow", "PetSpotProtocol", "PetSpotSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "petspot", dependencies: [
            "PetSpotClient", "PetSpotJSON", "PetSpotProtocol", "PetSpotSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Load generator for the figures in docs/PERFORMANCE.md (not installed).
        .executableTarget(name: "petspot-load", dependencies: ["PetSpotClient", "PetSpotJSON"], path: "Benchmarks/petspot-load"),

        .testTarget(name: "PetSpotJSONTests", dependencies: ["PetSpotJSON"]),
        .testTarget(name: "PetSpotFlowTests", dependencies: ["PetSpotFlow", "PetSpotJSON", "PetSpotProtocol"]),
        .testTarget(name: "PetSpotProtocolTests", dependencies: ["PetSpotProtocol", "PetSpotJSON"]),
        .testTarget(name: "PetSpotSystemTests", dependencies: ["PetSpotSystem"]),
        .testTarget(name: "PetSpotLocationTests", dependencies: ["PetSpotLocation", "PetSpotFlow", "PetSpotProtocol"]),
        .testTarget(name: "PetSpotStoreTests", dependencies: [
            "PetSpotStore",
            // The tests build foreign and newer-schema databases to prove they are refused.
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "PetSpotServerTests", dependencies: [
            "PetSpotServer", "PetSpotFlow", "PetSpotJSON", "PetSpotProtocol",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Drives the built petspotd and petspot programs over a real socket.
        .testTarget(name: "PetSpotIntegrationTests", dependencies: ["PetSpotClient", "PetSpotJSON", "PetSpotProtocol", "petspotd", "petspot"]),
    ],
    swiftLanguageModes: [.v6]
)
