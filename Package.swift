// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "darkroom",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
        .library(name: "DarkroomImaging", targets: ["DarkroomImaging"]),
        .library(name: "DarkroomCore", targets: ["DarkroomCore"]),
        .library(name: "DarkroomDaemon", targets: ["DarkroomDaemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
        // Linux calls Swift's Glibc module does not export (inotify, renameat2).
        .target(name: "CDarkroomSystem"),

        // Pixels: formats, decoding, the sepia kernel, encoding, and the streaming
        // develop pipeline. Bytes in, bytes out: no file naming, no networking.
        .target(
            name: "DarkroomImaging",
            dependencies: ["CDarkroomCodecs", "CDarkroomKernels"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        // Pure logic, no I/O: manifests, photo names → file names, journal records
        // and their replay, retry and URL policies.
        .target(name: "DarkroomCore", dependencies: ["DarkroomImaging"]),
        // Files: atomic writes, the journal file, inbox claims, the outbox layout.
        .target(name: "DarkroomStorage", dependencies: ["DarkroomCore", "CDarkroomSystem"]),
        // Getting image bytes: the Downloader protocol, HTTP(S) over AsyncHTTPClient, file://.
        .target(
            name: "DarkroomNetwork",
            dependencies: [
                "DarkroomCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The operating system: inotify, signals, sd_notify, the stderr log handler.
        .target(
            name: "DarkroomSystem",
            dependencies: ["CDarkroomSystem", .product(name: "Logging", package: "swift-log")]
        ),
        // The daemon: download → filter Operations on prioritised queues, the
        // registry of work in progress, scheduling, resume, shutdown.
        .target(
            name: "DarkroomDaemon",
            dependencies: [
                "DarkroomCore", "DarkroomImaging", "DarkroomStorage", "DarkroomNetwork", "DarkroomSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "darkroom",
            dependencies: [
                "DarkroomImaging",
                "DarkroomStorage",
                "DarkroomCore",
                "DarkroomDaemon",
                "DarkroomSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // A local HTTP server that serves fixtures and injects faults, for tests and demos.
        .target(
            name: "DarkroomTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DarkroomImagingTests",
            dependencies: ["DarkroomImaging", "DarkroomTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "DarkroomCoreTests", dependencies: ["DarkroomCore", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomStorageTests", dependencies: ["DarkroomStorage", "DarkroomTestSupport"]),
        .testTarget(
            name: "DarkroomSystemTests",
            dependencies: ["DarkroomSystem", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "DarkroomNetworkTests", dependencies: ["DarkroomNetwork", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomDaemonTests", dependencies: ["DarkroomDaemon", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomCLITests", dependencies: ["darkroom", "DarkroomImaging", "DarkroomCore", "DarkroomStorage"]),
        // The real binary against a real HTTP server: faults, signals, crashes, several daemons.
        .testTarget(
            name: "DarkroomIntegrationTests",
            dependencies: ["darkroom", "DarkroomCore", "DarkroomStorage", "DarkroomImaging", "DarkroomTestSupport"]
        ),
    ]
)
