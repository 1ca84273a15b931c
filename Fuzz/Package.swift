// swift-tools-version:5.4
// libFuzzer targets for Darkroom; see README.md. Built and run by ../scripts/fuzz, which
// passes the sanitizer flags (-sanitize=fuzzer,address) to every target, the root
// package's DarkroomCore, DarkroomImaging and C codecs included.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable target's
// `main` to `<Target>_main` in debug builds (so that tests can import executables) and
// the link then fails, because with -parse-as-library there is no Swift `main` at all:
// libFuzzer's is the entry point. In 5.4 an `.executableTarget` is a plain executable.
import PackageDescription

let package = Package(
    name: "DarkroomFuzz",
    dependencies: [.package(name: "darkroom", path: "..")],
    targets: [
        // The manifest parser, as `darkroom run` and `darkroom validate` call it.
        .executableTarget(name: "FuzzManifest", dependencies: [.product(name: "DarkroomCore", package: "darkroom")]),
        // decode → sepia → encode (in memory) → decode again; shared by the two image targets.
        .target(name: "FuzzImaging", dependencies: [.product(name: "DarkroomImaging", package: "darkroom")]),
        .executableTarget(name: "FuzzJPEG", dependencies: ["FuzzImaging"]),
        .executableTarget(name: "FuzzPNG", dependencies: ["FuzzImaging"]),
    ]
)
