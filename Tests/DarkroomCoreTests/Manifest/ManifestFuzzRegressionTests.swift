@testable import DarkroomCore
import Foundation
import XCTest

/// The manifests the fuzzer found (Fuzz/Regressions/manifest, see Fuzz/README.md): each is
/// rejected with a message, never a crash.
final class ManifestFuzzRegressionTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Regressions/manifest")

    static let setRejection = "a binary property list with a set is not accepted (a manifest has no sets)"

    func testEveryRegressionIsRejectedCleanly() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            XCTAssertThrowsError(try ManifestParser.parse(data, name: "m"), name) { error in
                let message = (error as? ManifestRejection)?.message ?? ""
                XCTAssertFalse(message.isEmpty, name)
                if name.hasPrefix("crash-binary-set") { XCTAssertEqual(message, Self.setRejection, name) }
            }
        }
    }

    /// 48 bytes, `bplist00` with a root set holding one string: Foundation on Linux
    /// (Swift 6.3) dies with SIGSEGV bridging it, taking `darkroom run` or `validate` along.
    func testBinaryPlistWithASetIsRejectedBeforeFoundationReadsIt() throws {
        for name in ["crash-binary-set-root.plist", "crash-binary-set-value.plist", "crash-binary-set-photos.plist"] {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            XCTAssertTrue(BinaryPropertyListScreen.containsSet(data), name)
            XCTAssertThrowsError(try ManifestParser.parse(data, name: "m")) { error in
                XCTAssertEqual((error as? ManifestRejection)?.message, Self.setRejection, name)
            }
        }
    }

    /// Set-marker bytes inside data, strings and numbers are not objects: such a manifest is fine.
    func testSetMarkerBytesInsideValuesAreNotSets() throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["a": "http://h/\u{C1}.jpg", "b": Data([0xC1, 0xCF, 0xC0]), "c": 0xC1C1], format: .binary, options: 0)
        XCTAssertFalse(BinaryPropertyListScreen.containsSet(data))
        let manifest = try ManifestParser.parse(data, name: "m")
        XCTAssertEqual(manifest.entries.map(\.name), ["a", "b", "c"])
        XCTAssertTrue(manifest.entries[0].isValid)
    }

    /// Truncated and nonsense trailers are left to Foundation, which rejects them.
    func testDamagedBinaryPlistsAreStillRejectedByFoundation() throws {
        let good = try PropertyListSerialization.data(fromPropertyList: ["a": "http://h/a.jpg"], format: .binary, options: 0)
        for damaged in [good.prefix(20), good.prefix(good.count - 1), Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)] {
            XCTAssertFalse(BinaryPropertyListScreen.containsSet(Data(damaged)))
            XCTAssertThrowsError(try ManifestParser.parse(Data(damaged), name: "m"))
        }
    }
}
