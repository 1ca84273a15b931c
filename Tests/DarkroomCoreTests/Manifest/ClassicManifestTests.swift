@testable import DarkroomCore
import DarkroomImaging
import XCTest

final class ClassicManifestTests: XCTestCase {
    /// Modelled on the tutorial's ClassicPhotosDictionary.plist: photo names → image URLs,
    /// two of which are the marker "NO URL".
    private let tutorial = plist("""
    <dict>
        <key>Bridge</key>
        <string>http://upload.wikimedia.org/wikipedia/commons/6/6b/Bridge_in_Kent.jpg</string>
        <key>Pumpkins</key>
        <string>http://upload.wikimedia.org/wikipedia/commons/3/33/Pumpkins.jpg</string>
        <key>Lighthouse</key>
        <string>NO URL</string>
        <key>Bicycle</key>
        <string>http://upload.wikimedia.org/wikipedia/commons/4/41/Bicycle_in_Amsterdam.jpg</string>
        <key>Sunset</key>
        <string>http://upload.wikimedia.org/wikipedia/commons/5/58/Sunset_2007-1.jpg</string>
        <key>Zebra</key>
        <string>NO URL</string>
        <key>Apple</key>
        <string>http://upload.wikimedia.org/wikipedia/commons/1/15/Red_Apple.jpg</string>
    </dict>
    """)

    func testTheTutorialManifestParsesWithItsTwoNoURLEntriesFailingAlone() throws {
        let manifest = try ManifestParser.parse(tutorial, name: "ClassicPhotosDictionary")
        XCTAssertEqual(manifest.name, "ClassicPhotosDictionary")
        XCTAssertEqual(manifest.shape, .classic)
        XCTAssertEqual(manifest.priority, .normal)
        XCTAssertEqual(manifest.entries.map(\.name), ["Apple", "Bicycle", "Bridge", "Lighthouse", "Pumpkins", "Sunset", "Zebra"])
        XCTAssertEqual(manifest.entries.map(\.index), Array(0..<7))

        let invalid = manifest.entries.filter { !$0.isValid }
        XCTAssertEqual(invalid.map(\.name), ["Lighthouse", "Zebra"])
        for entry in invalid {
            XCTAssertEqual(entry.problem?.code, "invalid-url")
            XCTAssertEqual(entry.url, "NO URL")
        }
        XCTAssertEqual(manifest.validEntries.count, 5)
        XCTAssertEqual(manifest.invalidEntries.count, 2)
        let bridge = try XCTUnwrap(manifest.entries.first { $0.name == "Bridge" })
        XCTAssertEqual(bridge.url, "http://upload.wikimedia.org/wikipedia/commons/6/6b/Bridge_in_Kent.jpg")
        XCTAssertEqual(bridge.priority, .normal)
        XCTAssertEqual(bridge.settings, EntrySettings(intensity: 0.8, format: .source, quality: 90))
        XCTAssertNil(bridge.problem)
    }

    func testOrderIsByNameWhateverTheFileOrder() throws {
        let a = try ManifestParser.parse(plist("<dict><key>b</key><string>http://h/b</string><key>a</key><string>http://h/a</string></dict>"), name: "m")
        let b = try ManifestParser.parse(plist("<dict><key>a</key><string>http://h/a</string><key>b</key><string>http://h/b</string></dict>"), name: "m")
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.entries.map(\.name), ["a", "b"])
    }

    func testOptionsDefaultsApplyToClassicEntries() throws {
        let options = ManifestOptions(defaultFormat: .png, defaultQuality: 75)
        let manifest = try ManifestParser.parse(plist("<dict><key>a</key><string>http://h/a</string></dict>"), name: "m", options: options)
        XCTAssertEqual(manifest.entries[0].settings, EntrySettings(intensity: 0.8, format: .png, quality: 75))
    }

    func testANonStringValueIsThatEntrysInvalidURL() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict>
            <key>count</key><integer>3</integer>
            <key>flag</key><true/>
            <key>list</key><array/>
            <key>ok</key><string>https://h/ok.jpg</string>
        </dict>
        """), name: "m")
        XCTAssertEqual(manifest.shape, .classic)
        let problems = Dictionary(uniqueKeysWithValues: manifest.entries.map { ($0.name, $0.problem) })
        XCTAssertEqual(problems["count"], .invalidURL("value is an integer, not a URL string"))
        XCTAssertEqual(problems["flag"], .invalidURL("value is a boolean, not a URL string"))
        XCTAssertEqual(problems["list"], .invalidURL("value is an array, not a URL string"))
        XCTAssertEqual(problems["ok"], .some(nil))
        XCTAssertEqual(manifest.entries.first { $0.name == "count" }?.url, "")
    }

    func testEmptyAndBlankNamesAreInvalidEntries() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict>
            <key></key><string>http://h/1</string>
            <key>  </key><string>http://h/2</string>
            <key>fine</key><string>http://h/3</string>
        </dict>
        """), name: "m")
        let byName = Dictionary(uniqueKeysWithValues: manifest.entries.map { ($0.name, $0) })
        XCTAssertEqual(byName[""]?.problem?.code, "invalid-entry")
        XCTAssertEqual(byName["  "]?.problem?.code, "invalid-entry")
        XCTAssertTrue(byName["fine"]?.isValid ?? false)
    }

    func testAPhotosKeyWithAStringValueIsJustAClassicPhoto() throws {
        let manifest = try ManifestParser.parse(plist("<dict><key>photos</key><string>http://h/photos.jpg</string></dict>"), name: "m")
        XCTAssertEqual(manifest.shape, .classic)
        XCTAssertEqual(manifest.entries.map(\.name), ["photos"])
        XCTAssertTrue(manifest.entries[0].isValid)
    }

    func testClassicHasNoManifestLevelKeys() throws {
        // Every value is a string, so this is classic (SPEC §2): "priority" is a photo.
        let manifest = try ManifestParser.parse(plist("<dict><key>priority</key><string>high</string><key>a</key><string>http://h/a</string></dict>"), name: "m")
        XCTAssertEqual(manifest.shape, .classic)
        XCTAssertEqual(manifest.priority, .normal)
        XCTAssertEqual(manifest.entries.first { $0.name == "priority" }?.problem?.code, "invalid-url")
    }

    func testSchemeProblemsAndFileURLOptionReachTheEntries() throws {
        let data = plist("<dict><key>f</key><string>file:///srv/photos/f.jpg</string><key>g</key><string>ftp://h/g.jpg</string></dict>")
        let strict = try ManifestParser.parse(data, name: "m")
        XCTAssertEqual(strict.entries.map { $0.problem?.code }, ["scheme-not-allowed", "scheme-not-allowed"])
        let relaxed = try ManifestParser.parse(data, name: "m", options: ManifestOptions(allowFileURLs: true))
        XCTAssertEqual(relaxed.entries.map { $0.problem?.code }, [nil, "scheme-not-allowed"])
    }

    func testBinaryPropertyListsAreRead() throws {
        let data = try binaryPlist(["Pumpkins": "http://h/p.jpg", "Lighthouse": "NO URL"])
        XCTAssertEqual(data.prefix(6), Data("bplist".utf8))
        let manifest = try ManifestParser.parse(data, name: "bin")
        XCTAssertEqual(manifest.shape, .classic)
        XCTAssertEqual(manifest.entries.map(\.name), ["Lighthouse", "Pumpkins"])
        XCTAssertEqual(manifest.entries.map(\.isValid), [false, true])
    }

    func testAnEmptyDictionaryIsAManifestWithNoEntries() throws {
        let manifest = try ManifestParser.parse(plist("<dict/>"), name: "m")
        XCTAssertEqual(manifest.shape, .classic)
        XCTAssertTrue(manifest.entries.isEmpty)
    }
}
