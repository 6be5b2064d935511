// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "petspotd",
    products: [
        .executable(name: "petspotd", targets: ["petspotd"]),
        .executable(name: "petspot", targets: ["petspot"]),
        .executable(name: "petspot-relay", targets: ["petspot-relay"]),
        // For petspot-poster (Poster/, a package of its own): the flow's string catalogs, dates,
        // genders and species names, the JSON reader, whole reads and writes, the version.
        .library(name: "PetSpotFlow", targets: ["PetSpotFlow"]),
        .library(name: "PetSpotViews", targets: ["PetSpotViews"]),
        .library(name: "PetSpotJSON", targets: ["PetSpotJSON"]),
        .library(name: "PetSpotSystem", targets: ["PetSpotSystem"]),
        .library(name: "PetSpotProtocol", targets: ["PetSpotProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
    ],
    targets: [
        // Text made fit for a terminal or a log line: the one rule for which characters are
        // shown escaped, for the clients' output, the log lines and JSON written for a person.
        .target(name: "PetSpotText"),
        // Pure JSON values: a strict parser with limits and a writer. No I/O.
        .target(name: "PetSpotJSON", dependencies: ["PetSpotText"]),
        // The report flow: steps, fields, rules, formatting, screens, string catalogs. No I/O.
        // SHA-256 of a photo comes from libcrypto (CLibCrypto), a pure function like the rest.
        .target(name: "PetSpotFlow", dependencies: ["PetSpotJSON", "PetSpotViews", "CLibCrypto"]),
        // OpenSSL's libcrypto as Debian ships it (libssl3): SHA-256 at the CPU's speed.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // What a client is shown, free of the wire: the flow view, a location and the location
        // service's state, the language, where a setting is, and the way sizes and chip numbers are
        // written for people. The flow and the location service build them; clients draw them.
        .target(name: "PetSpotViews", dependencies: ["PetSpotJSON"]),
        // The animal list's rules: what the public and staff may see of a report (positions,
        // contacts, photos without metadata), distances and search boxes, the order and the
        // cursor of its pages, the chip lookup key. Plain values and functions, no I/O.
        .target(name: "PetSpotBoard", dependencies: ["PetSpotJSON", "PetSpotViews", "PetSpotFlow"]),
        // The wire: JSON-RPC 2.0 envelopes, error kinds, parameter readers, the views' JSON, and
        // the contract of every method as a type: what daemon and clients both read and write.
        .target(name: "PetSpotProtocol", dependencies: ["PetSpotJSON", "PetSpotViews", "PetSpotText"]),
        // Configuration files read against a table of settings, the same way by petspotd and petspot-relay.
        .target(name: "PetSpotSettings", dependencies: ["PetSpotJSON", "PetSpotSystem"]),
        // Thin POSIX edges the programs share: whole reads and writes on a descriptor, a named thread.
        .target(name: "PetSpotSystem"),
        // libgps, the gpsd client library, behind a small shim (Sources/CGPS/petspot_gps.h).
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        // The location service and its providers.
        .target(name: "PetSpotLocation", dependencies: [
            "PetSpotFlow", "PetSpotViews", "PetSpotSystem", "CGPS",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // SQLite as Debian ships it (libsqlite3-0, with R*Tree), as the report store's database.
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // One SQLite connection that keeps its statements prepared, used from one thread at a time.
        .target(name: "PetSpotSQLite", dependencies: ["CSQLite3"]),
        // Durable reports in SQLite. A report's life after submit is pure rules (ReportLife) the
        // store applies; erasure rewrites the stored values with PetSpotJSON.
        .target(name: "PetSpotStore", dependencies: [
            "PetSpotJSON", "PetSpotViews", "PetSpotBoard", "PetSpotSQLite",
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The daemon: configuration, flow registry, NIO pipeline, method dispatch, and its
        // services (server, location, watchdog, timers) in one ServiceGroup.
        .target(name: "PetSpotServer", dependencies: [
            "PetSpotJSON", "PetSpotFlow", "PetSpotBoard", "PetSpotProtocol", "PetSpotViews", "PetSpotSettings", "PetSpotLocation", "PetSpotStore", "PetSpotSystem", "PetSpotLogging",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        ]),
        // Log lines on standard error that journald reads with their priorities: the daemon's
        // and the relay's.
        .target(name: "PetSpotLogging", dependencies: ["PetSpotSystem", "PetSpotText", .product(name: "Logging", package: "swift-log")]),
        // A small blocking client over the Unix socket, for the CLI, tools and tests.
        .target(name: "PetSpotClient", dependencies: ["PetSpotJSON", "PetSpotProtocol", "PetSpotViews", "PetSpotText"]),
        .executableTarget(name: "petspotd", dependencies: [
            "PetSpotServer", "PetSpotFlow", "PetSpotProtocol", "PetSpotSettings", "PetSpotSystem", "PetSpotLogging",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "petspot", dependencies: [
            "PetSpotClient", "PetSpotJSON", "PetSpotProtocol", "PetSpotViews", "PetSpotSystem", "PetSpotText",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // libpq, PostgreSQL's client library as Debian ships it (libpq5, on Debian's OpenSSL).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Carries the daemon's finished reports into one central PostgreSQL: configuration, the
        // connection string, the central schema and its writer, the delivery loop, backoff,
        // status. Like petspotd it needs FoundationEssentials at most, not Foundation's ICU.
        .target(name: "PetSpotRelay", dependencies: [
            "PetSpotClient", "PetSpotJSON", "PetSpotProtocol", "PetSpotSettings", "PetSpotSystem", "PetSpotLogging", "PetSpotText", "CLibPQ",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "petspot-relay", dependencies: [
            "PetSpotRelay", "PetSpotProtocol", "PetSpotSettings", "PetSpotSystem", "PetSpotLogging",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        // Load generator for the figures in docs/PERFORMANCE.md (not installed).
        .executableTarget(name: "petspot-load", dependencies: ["PetSpotClient", "PetSpotJSON"], path: "Benchmarks/petspot-load"),
        // A bare SwiftNIO line echo: the request path's anchor beside the C echo server.
        .executableTarget(name: "petspot-nio-echo", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ], path: "Benchmarks/nio-echo"),
        // The report store alone, in process: what durable submits cost without the socket and the flow.
        .executableTarget(name: "petspot-store-load", dependencies: ["PetSpotStore"], path: "Benchmarks/petspot-store-load"),
        // The animal list over a board of many reports, in process: a page's time per kind of query.
        .executableTarget(name: "petspot-board-load", dependencies: ["PetSpotStore", "PetSpotBoard", "PetSpotJSON", "PetSpotViews"],
                          path: "Benchmarks/petspot-board-load"),

        // What every suite of tests waits with: a condition polled until a deadline, never a fixed sleep.
        .target(name: "PetSpotTestSupport", path: "Tests/PetSpotTestSupport"),
        .testTarget(name: "PetSpotTextTests", dependencies: ["PetSpotText"]),
        .testTarget(name: "PetSpotJSONTests", dependencies: ["PetSpotJSON", "PetSpotText"]),
        .testTarget(name: "PetSpotFlowTests", dependencies: ["PetSpotFlow", "PetSpotJSON", "PetSpotViews"]),
        .testTarget(name: "PetSpotBoardTests", dependencies: ["PetSpotBoard", "PetSpotFlow", "PetSpotJSON", "PetSpotViews"]),
        .testTarget(name: "PetSpotProtocolTests", dependencies: ["PetSpotProtocol", "PetSpotViews", "PetSpotJSON"]),
        .testTarget(name: "PetSpotSystemTests", dependencies: ["PetSpotTestSupport", "PetSpotSystem"]),
        .testTarget(name: "PetSpotLocationTests", dependencies: [
            "PetSpotLocation", "PetSpotFlow", "PetSpotProtocol", "PetSpotViews", "PetSpotSystem",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PetSpotLoggingTests", dependencies: ["PetSpotLogging", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "PetSpotRelayTests", dependencies: ["PetSpotRelay", "PetSpotClient", "PetSpotJSON", "PetSpotSettings", "PetSpotSystem", "PetSpotText"]),
        .testTarget(name: "PetSpotSQLiteTests", dependencies: ["PetSpotSQLite"]),
        .testTarget(name: "PetSpotStoreTests", dependencies: ["PetSpotTestSupport", 
            "PetSpotStore",
            // The nearest-first search of the animal list, run over a real board.
            "PetSpotBoard", "PetSpotFlow", "PetSpotViews", "PetSpotJSON",
            // The tests build foreign, older and newer-schema databases with a plain connection.
            "PetSpotSQLite",
        ]),
        .testTarget(name: "PetSpotServerTests", dependencies: ["PetSpotTestSupport", 
            "PetSpotServer", "PetSpotFlow", "PetSpotJSON", "PetSpotProtocol", "PetSpotLocation", "PetSpotStore", "PetSpotSettings", "PetSpotSystem",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        // petspot's own rules, no daemon: how it words times and a report's status, its amend flags.
        .testTarget(name: "petspotTests", dependencies: ["petspot", "PetSpotProtocol", "PetSpotJSON"]),
        // Drives the built petspotd and petspot programs over a real socket.
        .testTarget(name: "PetSpotIntegrationTests", dependencies: ["PetSpotTestSupport", 
            "PetSpotClient", "PetSpotJSON", "PetSpotProtocol", "PetSpotViews", "PetSpotSystem", "PetSpotText", "petspotd", "petspot",
            "PetSpotRelay", "petspot-relay", "PetSpotFlow",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/, docs/RELIABILITY.md). They exist only for `make fuzz`, which sets
// PETSPOT_FUZZ=1 and builds them with -sanitize=fuzzer,address into their own scratch folder;
// an ordinary build or `make test` does not see them (there is no libFuzzer to link them with).
if Context.environment["PETSPOT_FUZZ"] == "1" {
    // Coverage and AddressSanitizer on this package's modules, not on swift-nio's:
    // libFuzzer follows our code, and has a tenth of the counters to clear and read per input.
    let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing"])]
    for target in package.targets where target.type == .regular {
        target.swiftSettings = (target.swiftSettings ?? []) + instrumented
    }
    // gold, the default linker, stops with an internal error (dwarf_reader.cc) on these
    // programs; the toolchain's lld links them.
    let fuzzLinker: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Fuzz/\(name)",
                          swiftSettings: instrumented, linkerSettings: fuzzLinker)
    }
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport"),
        fuzzTarget("fuzz-json", ["PetSpotJSON"]),
        fuzzTarget("fuzz-decimal", ["PetSpotJSON", "PetSpotFlow", "PetSpotViews"]),
        fuzzTarget("fuzz-line-frames", [
            "PetSpotServer",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        fuzzTarget("fuzz-flow-update", ["PetSpotFlow", "PetSpotJSON", "PetSpotProtocol", "PetSpotViews"]),
        fuzzTarget("fuzz-config", ["PetSpotServer", "PetSpotSettings", "PetSpotJSON"]),
    ]
}
