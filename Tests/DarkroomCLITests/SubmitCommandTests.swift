import Foundation
import XCTest

/// `darkroom submit MANIFEST... --inbox DIR`, run as a user would (SPEC §1, §2).
final class SubmitCommandTests: XCTestCase {
    private var scratch: Scratch!
    private var inbox: String!

    override func setUpWithError() throws {
        scratch = try Scratch()
        inbox = try scratch.folder("inbox")
    }

    override func tearDown() {
        scratch = nil
    }

    private func inboxFiles() -> [String] { scratch.contents("inbox") }

    func testAManifestIsCopiedUnderItsOwnNameWithNothingElseLeft() throws {
        let xml = try scratch.plist("outing.plist", ["a": "https://example.com/a.jpg", "b": "https://example.com/b.jpg"])
        let binary = try scratch.plist("extended.plist", ["photos": ["c": "https://example.com/c.jpg"]], format: .binary)
        let result = try Darkroom.run(["submit", xml, binary, "--inbox", inbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.lines, [
            "submitted outing.plist: classic, 2 entries, 0 with problems, priority normal",
            "submitted extended.plist: extended, 1 entries, 0 with problems, priority normal",
        ])
        XCTAssertEqual(inboxFiles(), ["extended.plist", "outing.plist"], "no temporary file is left behind")
        for name in ["outing.plist", "extended.plist"] {
            XCTAssertEqual(
                FileManager.default.contents(atPath: "\(inbox!)/\(name)"), FileManager.default.contents(atPath: scratch.path(name)),
                "\(name): the bytes are copied as they are")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: xml), "the original stays where it was")
    }

    func testSubmittingAgainReplacesTheWaitingManifest() throws {
        let path = try scratch.plist("again.plist", ["a": "https://example.com/a.jpg"])
        XCTAssertEqual(try Darkroom.run(["submit", path, "--inbox", inbox]).status, 0)
        try scratch.plist("again.plist", ["a": "https://example.com/a.jpg", "b": "https://example.com/b.jpg"])
        XCTAssertEqual(try Darkroom.run(["submit", path, "--inbox", inbox]).status, 0)
        XCTAssertEqual(inboxFiles(), ["again.plist"])
        XCTAssertEqual(FileManager.default.contents(atPath: "\(inbox!)/again.plist"), FileManager.default.contents(atPath: path))
    }

    func testARejectedManifestIsNotSubmitted() throws {
        let text = try scratch.file("notes.plist", Data("not a plist at all".utf8))
        let array = try scratch.plist("list.plist", ["https://example.com/a.jpg"])
        for path in [text, array] {
            let name = (path as NSString).lastPathComponent
            let result = try Darkroom.run(["submit", path, "--inbox", inbox])
            XCTAssertEqual(result.status, 1, "\(name): \(result.stderr)")
            XCTAssertEqual(result.errorLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("\(name): rejected: "), result.stderr)
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertEqual(inboxFiles(), [], "nothing is written")
    }

    func testTheGoodManifestsAreSubmittedWhenAnotherIsRejected() throws {
        let good = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg"])
        let bad = try scratch.file("bad.plist", Data("{".utf8))
        let missing = scratch.path("missing.plist")
        let result = try Darkroom.run(["submit", bad, good, missing, "--inbox", inbox])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(inboxFiles(), ["good.plist"])
        XCTAssertTrue(result.errorLines.contains { $0.hasPrefix("bad.plist: rejected: ") }, result.stderr)
        XCTAssertTrue(result.errorLines.contains { $0.hasPrefix("missing.plist: rejected: ") }, result.stderr)
    }

    func testAnInboxThatIsNotAFolderIsABadCommandLine() throws {
        let manifest = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg"])
        let file = try scratch.file("a-file", Data("x".utf8))
        for target in [file, scratch.path("no-such-folder")] {
            let result = try Darkroom.run(["submit", manifest, "--inbox", target])
            XCTAssertEqual(result.status, 2, "\(target): \(result.stderr)")
            XCTAssertEqual(result.errorLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(target), "the line names the inbox: \(result.stderr)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: file), Data("x".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("no-such-folder")))
    }

    func testMissingInboxOptionIsABadCommandLine() throws {
        let manifest = try scratch.plist("good.plist", ["a": "https://example.com/a.jpg"])
        let result = try Darkroom.run(["submit", manifest])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr)
    }

    func testEntryProblemsAreWarnedButTheManifestIsSubmitted() throws {
        let path = try scratch.plist("ClassicPhotosDictionary.plist", ValidateCommandTests.tutorial)
        let result = try Darkroom.run(["submit", path, "--inbox", inbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.errorLines.count, 2, result.stderr)
        XCTAssertTrue(result.errorLines[0].hasPrefix("ClassicPhotosDictionary.plist: entry 'Flower': invalid-url: "), result.stderr)
        XCTAssertTrue(result.errorLines[1].hasPrefix("ClassicPhotosDictionary.plist: entry 'Skyline': invalid-url: "), result.stderr)
        XCTAssertEqual(inboxFiles(), ["ClassicPhotosDictionary.plist"])
        XCTAssertEqual(result.lines, ["submitted ClassicPhotosDictionary.plist: classic, 5 entries, 2 with problems, priority normal"])
    }

    func testAllowFileURLsSilencesTheFileURLWarning() throws {
        let path = try scratch.plist("local.plist", ["disk": "file:///srv/photos/disk.jpg"])
        let warned = try Darkroom.run(["submit", path, "--inbox", inbox])
        XCTAssertEqual(warned.status, 0)
        XCTAssertTrue(warned.stderr.hasPrefix("local.plist: entry 'disk': scheme-not-allowed: "), warned.stderr)
        let quiet = try Darkroom.run(["submit", "--allow-file-urls", path, "--inbox", inbox])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "")
        XCTAssertEqual(inboxFiles(), ["local.plist"])
    }

    /// The daemon rejects a manifest named after what the outbox holds itself; submit
    /// must not hand it one.
    func testANameTheOutboxUsesItselfIsNotSubmitted() throws {
        let path = try scratch.plist("rejected.plist", ["a": "https://example.com/a.jpg"])
        let result = try Darkroom.run(["submit", path, "--inbox", inbox])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("rejected.plist: rejected: "), result.stderr)
        XCTAssertEqual(inboxFiles(), [])
    }
}
