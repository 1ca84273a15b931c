import Foundation
import XCTest

/// `darkroom validate MANIFEST...`, run as a user would (SPEC §1, §2).
final class ValidateCommandTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws {
        scratch = try Scratch()
    }

    override func tearDown() {
        scratch = nil
    }

    /// The tutorial's `ClassicPhotosDictionary.plist`: name → URL, some saying "NO URL".
    static let tutorial: [String: String] = [
        "Clouds": "http://example.com/photos/clouds.jpg",
        "Flower": "NO URL",
        "Lake": "https://example.com/photos/lake.jpg",
        "Skyline": "NO URL",
        "Tree": "http://example.com/photos/tree.png",
    ]

    func testAGoodClassicManifestPassesWithASummaryLine() throws {
        let path = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg", "b": "http://example.com/b.png"])
        let result = try Darkroom.run(["validate", path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.lines, ["good.plist: classic, 2 entries, 0 with problems, priority normal"])
        XCTAssertEqual(result.stderr, "")
    }

    func testAGoodExtendedBinaryManifestPasses() throws {
        let path = try scratch.plist(
            "ext.plist",
            ["priority": "high", "photos": [["name": "one", "url": "https://example.com/1.jpg"]]], format: .binary)
        let result = try Darkroom.run(["validate", path])
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertEqual(result.lines, ["ext.plist: extended, 1 entries, 0 with problems, priority high"])
    }

    func testTheTutorialManifestNamesEveryBadEntry() throws {
        let path = try scratch.plist("ClassicPhotosDictionary.plist", Self.tutorial)
        let result = try Darkroom.run(["validate", path])
        XCTAssertEqual(result.status, 1, result.stdout)
        let problems = result.lines.filter { $0.contains(": entry '") }
        XCTAssertEqual(problems.count, 2, result.stdout)
        XCTAssertTrue(problems[0].hasPrefix("ClassicPhotosDictionary.plist: entry 'Flower': invalid-url: "), problems[0])
        XCTAssertTrue(problems[1].hasPrefix("ClassicPhotosDictionary.plist: entry 'Skyline': invalid-url: "), problems[1])
        XCTAssertTrue(problems.allSatisfy { $0.contains("NO URL") }, "the sentence quotes what the entry says")
        XCTAssertEqual(result.lines.last, "ClassicPhotosDictionary.plist: classic, 5 entries, 2 with problems, priority normal")
        XCTAssertEqual(result.lines.count, 3, result.stdout)
    }

    func testAFileThatIsNotAPropertyListIsRejected() throws {
        let text = try scratch.file("notes.plist", Data("hello, this is not a manifest\n".utf8))
        let empty = try scratch.file("empty.plist", Data())
        let junk = try scratch.file("junk.plist", Data([0x00, 0xFF, 0x10, 0x80, 0x7F]))
        for path in [text, empty, junk] {
            let name = (path as NSString).lastPathComponent
            let result = try Darkroom.run(["validate", path])
            XCTAssertEqual(result.status, 1, "\(name): \(result.stdout)")
            XCTAssertTrue(result.lines.first?.hasPrefix("\(name): rejected: not a property list") == true, result.stdout)
        }
    }

    func testAnArrayRootIsRejected() throws {
        let path = try scratch.plist("list.plist", ["https://example.com/a.jpg", "https://example.com/b.jpg"])
        let result = try Darkroom.run(["validate", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.lines.first?.hasPrefix("list.plist: rejected: ") == true, result.stdout)
        XCTAssertTrue(result.stdout.contains("dictionary"), "the reason says what a manifest must be: \(result.stdout)")
    }

    func testABadManifestLevelOptionRejectsTheManifest() throws {
        let path = try scratch.plist("loud.plist", ["priority": "urgent", "photos": ["a": "https://example.com/a.jpg"]])
        let result = try Darkroom.run(["validate", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.lines.first?.hasPrefix("loud.plist: rejected: ") == true, result.stdout)
    }

    /// The outbox keeps `journal.jsonl` and `rejected/` for itself: the daemon rejects
    /// manifests with those names, so validate must say so too.
    func testANameTheOutboxUsesItselfIsRejected() throws {
        for name in ["journal.jsonl.plist", "rejected.plist"] {
            let path = try scratch.plist(name, ["a": "https://example.com/a.jpg"])
            let result = try Darkroom.run(["validate", path])
            XCTAssertEqual(result.status, 1, result.stdout)
            XCTAssertTrue(result.lines.first?.hasPrefix("\(name): rejected: ") == true, result.stdout)
        }
    }

    func testSeveralFilesAreAllReportedAndOneProblemFailsThemAll() throws {
        let good = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg"])
        let other = try scratch.plist("other.plist", ["b": "https://example.com/b.jpg", "c": "https://example.com/c.jpg"])
        let bad = try scratch.plist("bad.plist", ["a": "NO URL", "b": "https://example.com/b.jpg"])
        let array = try scratch.plist("array.plist", ["x"])

        let allGood = try Darkroom.run(["validate", good, other])
        XCTAssertEqual(allGood.status, 0, allGood.stdout)
        XCTAssertEqual(allGood.lines, [
            "good.plist: classic, 1 entries, 0 with problems, priority normal",
            "other.plist: classic, 2 entries, 0 with problems, priority normal",
        ])

        let mixed = try Darkroom.run(["validate", good, bad, array, other])
        XCTAssertEqual(mixed.status, 1, mixed.stdout)
        XCTAssertTrue(mixed.lines.contains("good.plist: classic, 1 entries, 0 with problems, priority normal"), mixed.stdout)
        XCTAssertTrue(mixed.lines.contains("other.plist: classic, 2 entries, 0 with problems, priority normal"), mixed.stdout)
        XCTAssertTrue(mixed.lines.contains { $0.hasPrefix("bad.plist: entry 'a': invalid-url: ") }, mixed.stdout)
        XCTAssertTrue(mixed.lines.contains { $0.hasPrefix("array.plist: rejected: ") }, mixed.stdout)
        XCTAssertFalse(mixed.lines.contains { $0.hasPrefix("bad.plist: entry 'b'") }, "a good entry is not a problem")
        // Files are reported in the order given.
        let order = ["good.plist", "bad.plist", "array.plist", "other.plist"].map { name in
            mixed.lines.firstIndex { $0.hasPrefix(name) } ?? -1
        }
        XCTAssertEqual(order, order.sorted(), mixed.stdout)
    }

    func testAllowFileURLsChangesTheVerdictOnAFileURL() throws {
        let path = try scratch.plist("local.plist", ["disk": "file:///srv/photos/disk.jpg", "web": "https://example.com/w.jpg"])
        let refused = try Darkroom.run(["validate", path])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.lines.contains { $0.hasPrefix("local.plist: entry 'disk': scheme-not-allowed: ") }, refused.stdout)

        let allowed = try Darkroom.run(["validate", "--allow-file-urls", path])
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
        XCTAssertEqual(allowed.lines, ["local.plist: classic, 2 entries, 0 with problems, priority normal"])
    }

    func testAMissingFileIsReportedAndFails() throws {
        let good = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg"])
        let result = try Darkroom.run(["validate", scratch.path("nowhere.plist"), good])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertEqual(result.lines.first, "nowhere.plist: rejected: cannot read it: No such file or directory")
        XCTAssertTrue(result.lines.contains("good.plist: classic, 1 entries, 0 with problems, priority normal"), result.stdout)
    }

    /// A read error is reported as what it is, not as an empty file.
    func testAFolderIsNotReadAsAnEmptyFile() throws {
        let folder = try scratch.folder("folder.plist")
        let result = try Darkroom.run(["validate", folder])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertEqual(result.lines.first, "folder.plist: rejected: cannot read it: Is a directory")
    }

    func testNoManifestIsABadCommandLine() throws {
        let result = try Darkroom.run(["validate"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr)
    }
}
