@testable import DarkroomCore
import DarkroomImaging
import XCTest

final class ManifestNameTests: XCTestCase {
    func testManifestNames() {
        XCTAssertEqual(ManifestParser.manifestName(fileName: "x.plist"), "x")
        XCTAssertEqual(ManifestParser.manifestName(fileName: "holiday 2026.plist"), "holiday 2026")
        XCTAssertEqual(ManifestParser.manifestName(fileName: "a.b.plist"), "a.b")
        XCTAssertEqual(ManifestParser.manifestName(fileName: "x.tmp.plist"), "x.tmp")
        XCTAssertEqual(ManifestParser.manifestName(fileName: "fête.plist"), "fête")
    }

    func testFilesThatAreNotManifests() {
        for name in [".x.plist", ".plist", "x.plist.tmp", "x.plist.part", "x.tmp", "x.part", "x.xml", "x", "",
                     "x.PLIST", "x.plist.cancel", "x.cancel", "dir/x.plist", "/x.plist", "x.plist/"] {
            XCTAssertNil(ManifestParser.manifestName(fileName: name), name)
        }
    }
}

final class PriorityAndSettingsTests: XCTestCase {
    func testPriorityOrderAndDefault() {
        XCTAssertEqual(Priority.allCases.sorted(), [.veryLow, .low, .normal, .high, .veryHigh])
        XCTAssertLessThan(Priority.veryLow, .low)
        XCTAssertLessThan(Priority.high, .veryHigh)
        XCTAssertFalse(Priority.normal < .normal)
        XCTAssertEqual(Priority.default, .normal)
        XCTAssertEqual(Priority(name: "veryHigh"), .veryHigh)
        XCTAssertEqual(Priority(name: "LOW"), .low)
        XCTAssertNil(Priority(name: "urgent"))
        XCTAssertEqual(Priority.veryHigh.queuePriority, .veryHigh)
        XCTAssertEqual(Priority.low.queuePriority, .low)
        XCTAssertEqual(Priority.namesList, "veryLow, low, normal, high, veryHigh")
    }

    func testPriorityCodableUsesTheNames() throws {
        let data = try JSONEncoder().encode([Priority.veryLow])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[\"veryLow\"]")
    }

    func testSettingsDefaults() {
        let settings = EntrySettings()
        XCTAssertEqual(settings.intensity, 0.8)
        XCTAssertEqual(settings.format, .source)
        XCTAssertEqual(settings.quality, 90)
        XCTAssertEqual(settings.fingerprint, "intensity=0.8 format=source quality=90")
    }

    func testFingerprintFormatting() {
        XCTAssertEqual(EntrySettings(intensity: 1, format: .jpeg, quality: 100).fingerprint, "intensity=1 format=jpeg quality=100")
        XCTAssertEqual(EntrySettings(intensity: 0, format: .png, quality: 1).fingerprint, "intensity=0 format=png quality=1")
        XCTAssertEqual(EntrySettings(intensity: 0.25).fingerprint, "intensity=0.25 format=source quality=90")
        XCTAssertEqual(EntrySettings(intensity: 0.12345).fingerprint, "intensity=0.1235 format=source quality=90")
        XCTAssertEqual(EntrySettings(intensity: 0.05).fingerprint, "intensity=0.05 format=source quality=90")
        XCTAssertEqual(EntrySettings(intensity: 0.0001).fingerprint, "intensity=0.0001 format=source quality=90")
        XCTAssertEqual(EntrySettings(intensity: 0.00001).fingerprint, "intensity=0 format=source quality=90")
        // The same value however it was computed.
        XCTAssertEqual(EntrySettings(intensity: 0.1 + 0.7).fingerprint, EntrySettings(intensity: 0.8).fingerprint)
        XCTAssertNotEqual(EntrySettings(quality: 89).fingerprint, EntrySettings().fingerprint)
        XCTAssertNotEqual(EntrySettings(format: .png).fingerprint, EntrySettings().fingerprint)
    }

    func testEntryProblemDescription() {
        XCTAssertEqual(EntryProblem(code: "invalid-url", message: "no URL").description, "invalid-url: no URL")
        XCTAssertEqual(EntryProblem.invalidURL("no URL"), EntryProblem(code: "invalid-url", message: "no URL"))
        XCTAssertEqual(EntryProblem.schemeNotAllowed("x").code, "scheme-not-allowed")
        XCTAssertEqual(EntryProblem.invalidEntry("x").code, "invalid-entry")
    }
}
