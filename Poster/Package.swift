// swift-tools-version: 6.1
//
// petspot-poster, the missing-pet poster program, is a package of its own beside petspotd's
// (which it uses by path for the flow's string catalogs and the JSON reader), because it links
// cairo, pango, gdk-pixbuf and libqrencode: SwiftPM builds every target of a package on
// `swift build` and `swift test`, and a system library whose pkg-config file is missing stops
// the whole build. Kept apart, a machine without them still builds, tests and runs petspotd
// and petspot, which never link them; `make poster` (after `scripts/install-deps poster`)
// builds this one, and `make test` builds and tests both.
//
// SwiftPM warns "prohibited flag(s): -pthread" for pangocairo and gdk-pixbuf-2.0: Debian's
// gmodule-no-export-2.0.pc, which both require, lists -pthread, and SwiftPM passes on only
// -I, -L and -l from a pkg-config file. The flag is dropped; glibc has threads built in.
import PackageDescription

let package = Package(
    name: "petspot-poster",
    products: [
        .executable(name: "petspot-poster", targets: ["petspot-poster"]),
    ],
    dependencies: [
        .package(name: "petspotd", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The page: cairo draws it as a PDF or a PNG, Pango lays out its text, gdk-pixbuf
        // decodes the photo (JPEG, PNG; WebP and HEIC with Debian's loaders), libqrencode
        // makes the QR code. Debian's libraries, found by pkg-config, linked as they are.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev"])]),
        .systemLibrary(name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // What a poster says, read from its input document: the document and its checks, the
        // texts in a language, the paper and language of a locale, the QR code's URI, the
        // photo's bounds. Plain values and functions, no I/O and no C library.
        .target(name: "PetSpotPoster", dependencies: [
            .product(name: "PetSpotFlow", package: "petspotd"),
            .product(name: "PetSpotViews", package: "petspotd"),
            .product(name: "PetSpotJSON", package: "petspotd"),
        ]),
        // The page: its layout, the photo decoded to the size it is printed, the drawing.
        .target(name: "PetSpotPosterPage", dependencies: ["PetSpotPoster", "CCairo", "CPangoCairo", "CGdkPixbuf", "CQREncode"]),
        .executableTarget(name: "petspot-poster", dependencies: [
            "PetSpotPoster", "PetSpotPosterPage",
            .product(name: "PetSpotViews", package: "petspotd"),
            .product(name: "PetSpotSystem", package: "petspotd"),
            .product(name: "PetSpotProtocol", package: "petspotd"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // A JPEG of a given size for Benchmarks/run-poster.sh (not installed).
        .executableTarget(name: "poster-photo", dependencies: ["CGdkPixbuf"], path: "Benchmarks/poster-photo"),
        .testTarget(name: "PetSpotPosterTests", dependencies: [
            "PetSpotPoster",
            .product(name: "PetSpotFlow", package: "petspotd"),
            .product(name: "PetSpotViews", package: "petspotd"),
            .product(name: "PetSpotJSON", package: "petspotd"),
        ]),
        // Runs the built petspot-poster and reads its posters back with poppler-utils and
        // zbarimg; makes its test photos with gdk-pixbuf.
        .testTarget(name: "PetSpotPosterIntegrationTests", dependencies: [
            "petspot-poster", "CGdkPixbuf",
            .product(name: "PetSpotJSON", package: "petspotd"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
