@testable import DarkroomCore
import Foundation
import XCTest

final class ManifestResultTests: XCTestCase {
    private let result = ManifestResult(
        manifest: "holiday",
        finished: Date(timeIntervalSince1970: 1_795_243_200),
        entries: [
            "Bridge": EntryResult(state: .filtered, url: "http://h/b.jpg", output: "Bridge.jpg", settings: "intensity=0.8 format=source quality=90"),
            "Pumpkins": EntryResult(state: .skipped, url: "http://h/p.jpg", output: "Pumpkins.jpg", settings: "intensity=0.8 format=source quality=90"),
            "Lighthouse": EntryResult(state: .failed, url: "NO URL", error: "invalid-url: the entry says 'NO URL' instead of a URL"),
            "Zebra": EntryResult(state: .failed, url: "http://h/z.jpg", error: "http-404: server answered 404 Not Found"),
            "../../etc/passwd": EntryResult(state: .cancelled, url: "http://h/x.jpg", error: "cancelled: shutdown"),
            "fête 写真 <&>": EntryResult(state: .filtered, url: "http://h/f.png", output: "fête 写真 <&>.png"),
        ])

    func testCounts() {
        XCTAssertEqual(result.counts, ResultCounts(filtered: 2, failed: 2, skipped: 1, cancelled: 1))
        var counts = ResultCounts()
        for state in [EntryState.queued, .downloading, .downloaded, .filtering] { counts.count(state) }
        XCTAssertEqual(counts, ResultCounts())
        counts.count(.failed)
        XCTAssertEqual(counts.failed, 1)
    }

    func testPropertyListRoundTrip() throws {
        let data = result.propertyListData()
        XCTAssertTrue(String(decoding: data.prefix(5), as: UTF8.self) == "<?xml")
        XCTAssertEqual(try ManifestResult(propertyListData: data), result)
    }

    func testTheFileHasTheShapeOfSPEC3() throws {
        let root = try XCTUnwrap(PropertyListSerialization.propertyList(from: result.propertyListData(), format: nil) as? [String: Any])
        XCTAssertEqual(Set(root.keys), ["manifest", "finished", "counts", "entries"])
        XCTAssertEqual(root["manifest"] as? String, "holiday")
        XCTAssertEqual(root["finished"] as? Date, Date(timeIntervalSince1970: 1_795_243_200))
        let counts = try XCTUnwrap(root["counts"] as? [String: Any])
        XCTAssertEqual(counts.mapValues { ($0 as? NSNumber)?.intValue }, ["filtered": 2, "failed": 2, "skipped": 1, "cancelled": 1])
        let entries = try XCTUnwrap(root["entries"] as? [String: Any])
        let zebra = try XCTUnwrap(entries["Zebra"] as? [String: String])
        XCTAssertEqual(zebra, ["state": "failed", "url": "http://h/z.jpg", "error": "http-404: server answered 404 Not Found"])
        let bridge = try XCTUnwrap(entries["Bridge"] as? [String: String])
        XCTAssertEqual(bridge, ["state": "filtered", "url": "http://h/b.jpg", "output": "Bridge.jpg", "settings": "intensity=0.8 format=source quality=90"])
    }

    /// The hand-written XML is exactly what PropertyListSerialization writes for the same
    /// tree, names with markup and control characters included.
    func testTheTextIsFoundationsOwn() throws {
        var odd = result
        odd.entries["a\u{1}b\u{7f} & <tag>"] = EntryResult(state: .failed, url: "http://h/?a=1&b=<2>", error: "invalid-entry: x")
        var entries: [String: Any] = [:]
        for (name, entry) in odd.entries {
            var fields: [String: Any] = ["state": entry.state.rawValue, "url": entry.url]
            if let output = entry.output { fields["output"] = output }
            if let error = entry.error { fields["error"] = error }
            if let settings = entry.settings { fields["settings"] = settings }
            entries[name] = fields
        }
        let counts = odd.counts
        let tree: [String: Any] = [
            "manifest": odd.manifest, "finished": odd.finished, "entries": entries,
            "counts": ["filtered": counts.filtered, "failed": counts.failed, "skipped": counts.skipped, "cancelled": counts.cancelled],
        ]
        let foundation = try PropertyListSerialization.data(fromPropertyList: tree, format: .xml, options: 0)
        XCTAssertEqual(String(decoding: odd.propertyListData(), as: UTF8.self), String(decoding: foundation, as: UTF8.self))
        XCTAssertEqual(try ManifestResult(propertyListData: odd.propertyListData()), odd)
    }

    func testFractionsOfSecondsAreDropped() throws {
        var precise = result
        precise.finished = Date(timeIntervalSince1970: 1_795_243_200.75)
        let back = try ManifestResult(propertyListData: precise.propertyListData())
        XCTAssertEqual(back.finished.timeIntervalSince1970, 1_795_243_200, accuracy: 1)
        XCTAssertEqual(back.entries, precise.entries)
    }

    func testEmptyResult() throws {
        let empty = ManifestResult(manifest: "e", finished: Date(timeIntervalSince1970: 0), entries: [:])
        XCTAssertEqual(try ManifestResult(propertyListData: empty.propertyListData()), empty)
        XCTAssertEqual(empty.counts, ResultCounts())
    }

    func testControlCharactersInNamesSurvive() throws {
        let odd = ManifestResult(manifest: "m", finished: Date(timeIntervalSince1970: 60), entries: ["a\u{1}b": EntryResult(state: .failed, url: "", error: "invalid-url: no URL")])
        XCTAssertEqual(try ManifestResult(propertyListData: odd.propertyListData()), odd)
    }

    func testReadsBinaryToo() throws {
        let object: [String: Any] = ["manifest": "b", "finished": Date(timeIntervalSince1970: 100), "entries": ["x": ["state": "skipped", "url": "u", "output": "x.jpg"]]]
        let back = try ManifestResult(propertyListData: try binaryPlist(object))
        XCTAssertEqual(back, ManifestResult(manifest: "b", finished: Date(timeIntervalSince1970: 100), entries: ["x": EntryResult(state: .skipped, url: "u", output: "x.jpg")]))
    }

    func testBadFilesThrow() {
        let cases: [Data] = [
            Data(),
            Data("garbage".utf8),
            plist("<array/>"),
            plist("<dict><key>finished</key><date>2026-01-01T00:00:00Z</date><key>entries</key><dict/></dict>"),
            plist("<dict><key>manifest</key><string>m</string><key>entries</key><dict/></dict>"),
            plist("<dict><key>manifest</key><string>m</string><key>finished</key><date>2026-01-01T00:00:00Z</date></dict>"),
            plist("<dict><key>manifest</key><string>m</string><key>finished</key><date>2026-01-01T00:00:00Z</date><key>entries</key><dict><key>x</key><string>s</string></dict></dict>"),
            plist("<dict><key>manifest</key><string>m</string><key>finished</key><date>2026-01-01T00:00:00Z</date><key>entries</key><dict><key>x</key><dict><key>state</key><string>exploded</string></dict></dict></dict>"),
        ]
        for (index, data) in cases.enumerated() {
            XCTAssertThrowsError(try ManifestResult(propertyListData: data), "case \(index)") { error in
                XCTAssertTrue(error is ManifestResultError, "case \(index): \(error)")
            }
        }
    }
}
