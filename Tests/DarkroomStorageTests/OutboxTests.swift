import DarkroomCore
import DarkroomStorage
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class OutboxTests: XCTestCase {
    private var root: String!
    private var outbox: Outbox!

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "outbox-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        outbox = Outbox(folder: "\(root!)/outbox")
        try outbox.prepare()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func create(_ path: String, _ text: String = "x") {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), path)
    }

    private func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    func testLayout() {
        let folder = "\(root!)/outbox"
        XCTAssertEqual(outbox.defaultJournalPath, "\(folder)/journal.jsonl")
        XCTAssertEqual(outbox.manifestFolder("photos"), "\(folder)/photos")
        XCTAssertEqual(outbox.resultPath("photos"), "\(folder)/photos/result.plist")
        XCTAssertEqual(outbox.outputPath(manifest: "photos", file: "a.jpg"), "\(folder)/photos/a.jpg")
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    func testPrepareCreatesMissingParentsAndIsIdempotent() throws {
        let deep = Outbox(folder: "\(root!)/a/b/c/outbox")
        try deep.prepare()
        try deep.prepare()
        XCTAssertTrue(FileManager.default.fileExists(atPath: deep.folder))
    }

    func testPrepareFailsWhereAFileIsInTheWay() throws {
        create("\(root!)/file")
        XCTAssertThrowsError(try Outbox(folder: "\(root!)/file").prepare()) { XCTAssertTrue($0 is StorageError, "\($0)") }
        XCTAssertThrowsError(try Outbox(folder: "\(root!)/file/outbox").prepare()) { XCTAssertTrue($0 is StorageError, "\($0)") }
    }

    func testReservedNamesAreWhatTheOutboxUsesItself() {
        XCTAssertTrue(Outbox.reservedNames.contains("journal.jsonl"))
        XCTAssertTrue(Outbox.reservedNames.contains("rejected"))
        // The default journal is one of them: a manifest of that name would collide with it.
        let journalName = String(outbox.defaultJournalPath.split(separator: "/").last!)
        XCTAssertTrue(Outbox.reservedNames.contains(journalName))
        XCTAssertFalse(Outbox.reservedNames.contains("photos"))
    }

    // MARK: prepareManifestFolder

    func testPrepareManifestFolderCreatesTheFolder() throws {
        XCTAssertEqual(try outbox.prepareManifestFolder("photos"), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: outbox.manifestFolder("photos")))
        XCTAssertEqual(try outbox.prepareManifestFolder("photos"), 0, "idempotent")
    }

    func testPrepareManifestFolderRemovesOnlyTemporaryFiles() throws {
        let folder = outbox.manifestFolder("photos")
        try outbox.prepareManifestFolder("photos")
        for name in [
            ".darkroom-Ab12Cd.tmp", ".darkroom-download-3.tmp", ".darkroom-x.tmp",  // debris of an interrupted run
            "a.jpg", "b.png", "result.plist", "notes.tmp", ".darkroom-Ab12Cd", "darkroom-Ab12Cd.tmp", ".hidden",
            "x.darkroom-1.tmp",
        ] {
            create("\(folder)/\(name)")
        }
        try FileManager.default.createDirectory(atPath: "\(folder)/.darkroom-dir.tmp", withIntermediateDirectories: false)
        XCTAssertEqual(try outbox.prepareManifestFolder("photos"), 3)
        XCTAssertEqual(
            try names(in: folder),
            [".darkroom-Ab12Cd", ".darkroom-dir.tmp", ".hidden", "a.jpg", "b.png", "darkroom-Ab12Cd.tmp", "notes.tmp",
             "result.plist", "x.darkroom-1.tmp"])
    }

    func testPrepareManifestFolderRemovesADownloadLeftBehind() throws {
        try outbox.prepareManifestFolder("photos")
        let download = outbox.downloadPath(manifest: "photos", index: 7)
        XCTAssertTrue(download.hasPrefix(outbox.manifestFolder("photos") + "/"))
        XCTAssertTrue(AtomicFile.isTemporary(String(download.split(separator: "/").last!)))
        XCTAssertNotEqual(download, outbox.downloadPath(manifest: "photos", index: 8))
        create(download)
        XCTAssertEqual(try outbox.prepareManifestFolder("photos"), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: download))
    }

    func testPrepareManifestFolderLeavesOtherManifestsAlone() throws {
        try outbox.prepareManifestFolder("other")
        let debris = "\(outbox.manifestFolder("other"))/.darkroom-Ab12Cd.tmp"
        create(debris)
        try outbox.prepareManifestFolder("photos")
        XCTAssertTrue(FileManager.default.fileExists(atPath: debris))
    }

    // MARK: outputExists

    func testOutputExistsOnlyForARegularFile() throws {
        try outbox.prepareManifestFolder("photos")
        let folder = outbox.manifestFolder("photos")
        XCTAssertFalse(outbox.outputExists(manifest: "photos", file: "a.jpg"))
        create("\(folder)/a.jpg", "jpeg")
        XCTAssertTrue(outbox.outputExists(manifest: "photos", file: "a.jpg"))
        XCTAssertTrue(outbox.outputExists(manifest: "photos", file: "a.jpg"))

        try FileManager.default.createDirectory(atPath: "\(folder)/dir.jpg", withIntermediateDirectories: false)
        XCTAssertFalse(outbox.outputExists(manifest: "photos", file: "dir.jpg"))
        XCTAssertEqual(symlink("\(folder)/a.jpg", "\(folder)/link.jpg"), 0)
        XCTAssertFalse(outbox.outputExists(manifest: "photos", file: "link.jpg"), "a symbolic link is not an output")
        XCTAssertFalse(outbox.outputExists(manifest: "missing", file: "a.jpg"))
    }

    func testAnOutputWrittenAtomicallyExists() throws {
        try outbox.prepareManifestFolder("photos")
        try AtomicFile.write(Array("image".utf8), to: outbox.outputPath(manifest: "photos", file: "a.jpg"))
        XCTAssertTrue(outbox.outputExists(manifest: "photos", file: "a.jpg"))
    }

    // MARK: result.plist

    private func sampleResult(_ manifest: String = "photos") -> ManifestResult {
        ManifestResult(
            manifest: manifest, finished: Date(timeIntervalSince1970: 1_800_000_000),
            entries: [
                "Lake": EntryResult(state: .filtered, url: "http://example.com/lake.jpg", output: "Lake.jpg", settings: "s1"),
                "Old": EntryResult(state: .skipped, url: "http://example.com/old.jpg", output: "Old.jpg", settings: "s1"),
                "Broken": EntryResult(state: .failed, url: "NO URL", error: "invalid-url: not a URL"),
                "Late": EntryResult(state: .cancelled, url: "http://example.com/late.jpg", error: "cancelled"),
                "../../etc/passwd": EntryResult(state: .filtered, url: "http://example.com/p.jpg", output: "etc-passwd.jpg"),
            ])
    }

    func testResultRoundTrip() throws {
        try outbox.prepareManifestFolder("photos")
        XCTAssertNil(outbox.lastResult("photos"))
        let result = sampleResult()
        try outbox.writeResult(result)
        XCTAssertEqual(outbox.lastResult("photos"), result)
        XCTAssertEqual(try names(in: outbox.manifestFolder("photos")), ["result.plist"], "no temporary file left")

        var info = stat()
        XCTAssertEqual(stat(outbox.resultPath("photos"), &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o644)
    }

    func testResultIsAReadablePropertyList() throws {
        try outbox.prepareManifestFolder("photos")
        try outbox.writeResult(sampleResult())
        let data = try XCTUnwrap(FileManager.default.contents(atPath: outbox.resultPath("photos")))
        let root = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        XCTAssertEqual(root["manifest"] as? String, "photos")
        let counts = try XCTUnwrap(root["counts"] as? [String: Any])
        XCTAssertEqual(counts["filtered"] as? Int, 2)
        XCTAssertEqual(counts["failed"] as? Int, 1)
        XCTAssertEqual(counts["skipped"] as? Int, 1)
        XCTAssertEqual(counts["cancelled"] as? Int, 1)
        let entries = try XCTUnwrap(root["entries"] as? [String: Any])
        XCTAssertEqual(entries.count, 5)
    }

    func testWritingAResultReplacesThePreviousOne() throws {
        try outbox.prepareManifestFolder("photos")
        try outbox.writeResult(sampleResult())
        let second = ManifestResult(
            manifest: "photos", finished: Date(timeIntervalSince1970: 1_800_000_100),
            entries: ["Lake": EntryResult(state: .skipped, url: "http://example.com/lake.jpg", output: "Lake.jpg", settings: "s1")])
        try outbox.writeResult(second)
        XCTAssertEqual(outbox.lastResult("photos"), second)
    }

    func testAResultForAManifestWithoutAFolderIsAnError() {
        XCTAssertThrowsError(try outbox.writeResult(sampleResult("never-prepared"))) { error in
            XCTAssertEqual((error as? StorageError)?.errno, ENOENT, "\(error)")
        }
    }

    func testAnUnreadableResultIsNoResult() throws {
        try outbox.prepareManifestFolder("photos")
        create(outbox.resultPath("photos"), "not a property list")
        XCTAssertNil(outbox.lastResult("photos"))
        create(outbox.resultPath("photos"), "")
        XCTAssertNil(outbox.lastResult("photos"))
    }

    // MARK: manifestNames

    func testManifestNamesAreTheFoldersSortedWithoutHiddenOnesOrFiles() throws {
        for name in ["zeta", "alpha", "Mid"] { try outbox.prepareManifestFolder(name) }
        try FileManager.default.createDirectory(atPath: "\(outbox.folder)/.hidden", withIntermediateDirectories: false)
        create(outbox.defaultJournalPath)
        create("\(outbox.folder)/.darkroom-Ab12Cd.tmp")
        XCTAssertEqual(outbox.manifestNames(), ["Mid", "alpha", "zeta"])
        XCTAssertEqual(Outbox(folder: "\(root!)/missing").manifestNames(), [])
    }
}
