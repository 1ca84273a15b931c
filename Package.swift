// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "darkroom",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
        .library(name: "DarkroomImaging", targets: ["DarkroomImaging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C shims over libjpeg-turbo and libpng. Both libraries report errors by
        // exit() or longjmp; these functions catch that with setjmp and return an
        // error code and message, so Swift never sees a non-local jump.
        .target(
            name: "CDarkroomCodecs",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png")]
        ),
        // The sepia kernel, in C so that it vectorises (see sepia.c).
        .target(name: "CDarkroomKernels", cSettings: [.unsafeFlags(["-O3"])]),
        // Pixels: formats, decoding, the sepia kernel, encoding, and the streaming
        // develop pipeline. Bytes in, bytes out: no file naming, no networking.
        .target(
            name: "DarkroomImaging",
            dependencies: ["CDarkroomCodecs", "CDarkroomKernels"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        // Files that appear atomically (temporary name, flush, rename).
        .target(name: "DarkroomStorage"),
        .executableTarget(
            name: "darkroom",
            dependencies: [
                "DarkroomImaging",
                "DarkroomStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "DarkroomImagingTests",
            dependencies: ["DarkroomImaging"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "DarkroomStorageTests", dependencies: ["DarkroomStorage"]),
        .testTarget(name: "DarkroomCLITests", dependencies: ["darkroom", "DarkroomImaging"]),
    ]
)
