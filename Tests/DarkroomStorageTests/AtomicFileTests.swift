import DarkroomStorage
import Foundation
import XCTest

final class AtomicFileTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    func testWritesTheWholeFileUnderItsName() throws {
        try AtomicFile.write(Array("hello".utf8), to: "\(folder!)/a.txt")
        XCTAssertEqual(try String(contentsOfFile: "\(folder!)/a.txt", encoding: .utf8), "hello")
        XCTAssertEqual(try entries(), ["a.txt"])
        let mode = try FileManager.default.attributesOfItem(atPath: "\(folder!)/a.txt")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o644)
    }

    func testReplacesAnExistingFile() throws {
        try AtomicFile.write(Array("old".utf8), to: "\(folder!)/a.txt")
        try AtomicFile.write(Array("new".utf8), to: "\(folder!)/a.txt", durable: false)
        XCTAssertEqual(try String(contentsOfFile: "\(folder!)/a.txt", encoding: .utf8), "new")
        XCTAssertEqual(try entries(), ["a.txt"])
    }

    func testAFailureLeavesTheOldFileAndNoTemporaryFile() throws {
        struct Boom: Error {}
        try AtomicFile.write(Array("old".utf8), to: "\(folder!)/a.txt")
        var sawTemporary = false
        XCTAssertThrowsError(
            try AtomicFile.write(to: "\(folder!)/a.txt") { fd -> Void in
                _ = "partial".withCString { write(fd, $0, 7) }
                sawTemporary = try self.entries().contains { AtomicFile.isTemporary($0) }
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom) }
        XCTAssertTrue(sawTemporary, "the content was written under a temporary name")
        XCTAssertEqual(try String(contentsOfFile: "\(folder!)/a.txt", encoding: .utf8), "old")
        XCTAssertEqual(try entries(), ["a.txt"])
    }

    func testAMissingFolderIsAStorageError() {
        XCTAssertThrowsError(try AtomicFile.write(Array("x".utf8), to: "\(folder!)/missing/a.txt")) { error in
            let storage = error as? StorageError
            XCTAssertEqual(storage?.errno, ENOENT)
            XCTAssertTrue(storage?.description.contains("No such file or directory") ?? false, "\(error)")
        }
    }

    func testTemporaryNamesAreRecognised() {
        XCTAssertTrue(AtomicFile.isTemporary(".darkroom-Ab12Cd.tmp"))
        XCTAssertFalse(AtomicFile.isTemporary("photo.jpg"))
        XCTAssertFalse(AtomicFile.isTemporary(".darkroom-Ab12Cd"))
    }
}
