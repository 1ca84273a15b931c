@testable import DarkroomCore
import DarkroomImaging
import XCTest

final class ExtendedManifestTests: XCTestCase {
    func testPhotosDictionaryWithManifestLevelKeys() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict>
            <key>priority</key><string>high</string>
            <key>intensity</key><real>0.5</real>
            <key>format</key><string>png</string>
            <key>quality</key><integer>70</integer>
            <key>comment</key><string>unknown keys are ignored</string>
            <key>photos</key>
            <dict>
                <key>zeta</key><string>https://h/z.jpg</string>
                <key>alpha</key><string>https://h/a.jpg</string>
                <key>bad</key><string>NO URL</string>
            </dict>
        </dict>
        """), name: "ext")
        XCTAssertEqual(manifest.shape, .extended)
        XCTAssertEqual(manifest.priority, .high)
        XCTAssertEqual(manifest.entries.map(\.name), ["alpha", "bad", "zeta"])
        XCTAssertEqual(manifest.entries.map(\.priority), [.high, .high, .high])
        let expected = EntrySettings(intensity: 0.5, format: .png, quality: 70)
        XCTAssertEqual(manifest.entries.map(\.settings), [expected, expected, expected])
        XCTAssertEqual(manifest.entries.map { $0.problem?.code }, [nil, "invalid-url", nil])
    }

    func testPhotosArrayKeepsOrderAndEntryOverridesWin() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict>
            <key>priority</key><string>low</string>
            <key>intensity</key><integer>1</integer>
            <key>photos</key>
            <array>
                <dict><key>name</key><string>second-by-name</string><key>url</key><string>http://h/1.jpg</string></dict>
                <dict>
                    <key>name</key><string>first-by-name</string>
                    <key>url</key><string>http://h/2.jpg</string>
                    <key>priority</key><string>veryHigh</string>
                    <key>intensity</key><real>0.25</real>
                    <key>format</key><string>jpeg</string>
                    <key>quality</key><integer>55</integer>
                </dict>
                <dict><key>name</key><string>third</string><key>url</key><string>http://h/3.jpg</string><key>format</key><string>PNG</string></dict>
            </array>
        </dict>
        """), name: "arr", options: ManifestOptions(defaultFormat: .jpeg, defaultQuality: 80))
        XCTAssertEqual(manifest.shape, .extended)
        XCTAssertEqual(manifest.priority, .low)
        XCTAssertEqual(manifest.entries.map(\.name), ["second-by-name", "first-by-name", "third"])
        XCTAssertEqual(manifest.entries.map(\.index), [0, 1, 2])
        XCTAssertEqual(manifest.entries.map(\.priority), [.low, .veryHigh, .low])
        XCTAssertEqual(manifest.entries[0].settings, EntrySettings(intensity: 1, format: .jpeg, quality: 80))
        XCTAssertEqual(manifest.entries[1].settings, EntrySettings(intensity: 0.25, format: .jpeg, quality: 55))
        XCTAssertEqual(manifest.entries[2].settings, EntrySettings(intensity: 1, format: .png, quality: 80))
        XCTAssertTrue(manifest.entries.allSatisfy(\.isValid))
    }

    func testBadPerEntryValuesFailOnlyThatEntryNamingTheKey() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict><key>photos</key><array>
            <dict><key>name</key><string>p</string><key>url</key><string>http://h/p</string><key>priority</key><string>urgent</string></dict>
            <dict><key>name</key><string>i</string><key>url</key><string>http://h/i</string><key>intensity</key><real>1.5</real></dict>
            <dict><key>name</key><string>i2</string><key>url</key><string>http://h/i</string><key>intensity</key><string>strong</string></dict>
            <dict><key>name</key><string>f</string><key>url</key><string>http://h/f</string><key>format</key><string>gif</string></dict>
            <dict><key>name</key><string>q</string><key>url</key><string>http://h/q</string><key>quality</key><real>90</real></dict>
            <dict><key>name</key><string>q2</string><key>url</key><string>http://h/q</string><key>quality</key><integer>0</integer></dict>
            <dict><key>name</key><string>q3</string><key>url</key><string>http://h/q</string><key>quality</key><true/></dict>
            <dict><key>name</key><string>ok</string><key>url</key><string>http://h/ok</string></dict>
        </array></dict>
        """), name: "m")
        let problems = manifest.entries.map(\.problem)
        XCTAssertEqual(problems[0], .invalidEntry("priority 'urgent' is not one of veryLow, low, normal, high, veryHigh"))
        XCTAssertEqual(problems[1], .invalidEntry("intensity 1.5 is not between 0 and 1"))
        XCTAssertEqual(problems[2], .invalidEntry("intensity is a string ('strong'), not a number between 0 and 1"))
        XCTAssertEqual(problems[3], .invalidEntry("format 'gif' is not one of jpeg, png, source"))
        XCTAssertEqual(problems[4], .invalidEntry("quality is a real number (90.0), not an integer between 1 and 100"))
        XCTAssertEqual(problems[5], .invalidEntry("quality 0 is not between 1 and 100"))
        XCTAssertEqual(problems[6], .invalidEntry("quality is a boolean (true), not an integer between 1 and 100"))
        XCTAssertNil(problems[7])
        XCTAssertEqual(manifest.entries[4].url, "http://h/q", "the URL is still reported")
    }

    func testMalformedArrayElements() throws {
        let manifest = try ManifestParser.parse(plist("""
        <dict><key>photos</key><array>
            <string>http://h/not-a-dict</string>
            <dict><key>url</key><string>http://h/nameless</string></dict>
            <dict><key>name</key><integer>7</integer><key>url</key><string>http://h/7</string></dict>
            <dict><key>name</key><string></string><key>url</key><string>http://h/empty</string></dict>
            <dict><key>name</key><string> &#9; </string><key>url</key><string>http://h/blank</string></dict>
            <dict><key>name</key><string>no-url</string></dict>
            <dict><key>name</key><string>num-url</string><key>url</key><integer>5</integer></dict>
            <dict><key>name</key><string>dup</string><key>url</key><string>http://h/first</string></dict>
            <dict><key>name</key><string>dup</string><key>url</key><string>http://h/second</string></dict>
        </array></dict>
        """), name: "m")
        let entries = manifest.entries
        XCTAssertEqual(entries.count, 9)
        XCTAssertEqual(entries[0].name, "#1")
        XCTAssertEqual(entries[0].problem, .invalidEntry("entry 1 is a string, not a dictionary"))
        XCTAssertEqual(entries[1].name, "#2")
        XCTAssertEqual(entries[1].problem, .invalidEntry("entry 2 has no name"))
        XCTAssertEqual(entries[1].url, "http://h/nameless")
        XCTAssertEqual(entries[2].name, "#3")
        XCTAssertEqual(entries[2].problem, .invalidEntry("entry 3: name is an integer, not a string"))
        XCTAssertEqual(entries[3].problem?.code, "invalid-entry")
        XCTAssertEqual(entries[4].name, " \t ")
        XCTAssertEqual(entries[4].problem?.code, "invalid-entry")
        XCTAssertEqual(entries[5].problem, .invalidURL("no URL"))
        XCTAssertEqual(entries[6].problem, .invalidURL("url is an integer, not a URL string"))
        XCTAssertNil(entries[7].problem, "the first of two duplicates is processed")
        XCTAssertEqual(entries[8].problem, .invalidEntry("the name 'dup' is already used by entry 8"))
        XCTAssertEqual(entries[8].url, "http://h/second")
    }

    func testEmptyPhotosArrayIsAnEmptyExtendedManifest() throws {
        let manifest = try ManifestParser.parse(plist("<dict><key>photos</key><array/><key>priority</key><string>veryLow</string></dict>"), name: "m")
        XCTAssertEqual(manifest.shape, .extended)
        XCTAssertEqual(manifest.priority, .veryLow)
        XCTAssertTrue(manifest.entries.isEmpty)
    }

    func testPriorityAndFormatNamesIgnoreCase() throws {
        let manifest = try ManifestParser.parse(plist("<dict><key>priority</key><string>VERYHIGH</string><key>format</key><string>Jpeg</string><key>photos</key><dict/></dict>"), name: "m")
        XCTAssertEqual(manifest.priority, .veryHigh)
    }

    func testBinaryExtendedArrayManifest() throws {
        let object: [String: Any] = [
            "priority": "high",
            "quality": 60,
            "photos": [
                ["name": "one", "url": "https://h/1.png", "intensity": 0.3],
                ["name": "two", "url": "https://h/2.png", "priority": "veryLow", "format": "source"],
            ],
        ]
        let manifest = try ManifestParser.parse(try binaryPlist(object), name: "bin")
        XCTAssertEqual(manifest.shape, .extended)
        XCTAssertEqual(manifest.priority, .high)
        XCTAssertEqual(manifest.entries.map(\.name), ["one", "two"])
        XCTAssertEqual(manifest.entries.map(\.priority), [.high, .veryLow])
        XCTAssertEqual(manifest.entries[0].settings, EntrySettings(intensity: 0.3, format: .source, quality: 60))
        XCTAssertTrue(manifest.entries.allSatisfy(\.isValid))
    }
}
