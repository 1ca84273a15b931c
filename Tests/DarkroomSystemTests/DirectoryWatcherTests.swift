import DarkroomSystem
import Dispatch
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class DirectoryWatcherTests: XCTestCase {
    private var root: String!
    private var folder: String { "\(root!)/watched" }
    private let queue = DispatchQueue(label: "directory-watcher-tests")
    private static let queueKey = DispatchSpecificKey<Bool>()

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "watcher-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// What a watcher reported, in order, and whether every call came on the queue.
    private final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String?] = []
        private var distinct: Set<String?> = []
        private var offQueue = 0
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ name: String?) {
            let onQueue = DispatchQueue.getSpecific(key: DirectoryWatcherTests.queueKey) == true
            lock.withLock {
                names.append(name)
                distinct.insert(name)
                if !onQueue { offQueue += 1 }
            }
            arrived.signal()
        }

        var all: [String?] { lock.withLock { names } }
        var callsOffQueue: Int { lock.withLock { offQueue } }

        /// Waits until `name` has been reported (or 5 s).
        func wait(for name: String?) -> Bool {
            let deadline = DispatchTime.now() + 5
            while !lock.withLock({ distinct.contains(name) }) {
                if arrived.wait(timeout: deadline) == .timedOut { return lock.withLock { distinct.contains(name) } }
            }
            return true
        }
    }

    private func watch(_ path: String? = nil) throws -> (DirectoryWatcher, Reports) {
        let reports = Reports()
        let watcher = try DirectoryWatcher(path: path ?? folder, queue: queue) { reports.add($0) }
        return (watcher, reports)
    }

    private func writeFile(_ path: String, _ text: String = "data") {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, path)
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }

    func testReportsAFileWrittenAndClosedOnTheQueue() throws {
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        writeFile("\(folder)/photos.plist")
        XCTAssertTrue(reports.wait(for: "photos.plist"), "\(reports.all)")
        queue.sync {}
        XCTAssertEqual(reports.all, ["photos.plist"], "one report for one close")
        XCTAssertEqual(reports.callsOffQueue, 0)
        XCTAssertEqual(watcher.path, folder)
    }

    func testDoesNotReportAFileStillOpenForWriting() throws {
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        let fd = open("\(folder)/slow.plist", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = "half".withCString { Glibc.write(fd, $0, 4) }
        writeFile("\(folder)/marker")
        XCTAssertTrue(reports.wait(for: "marker"))
        XCTAssertEqual(reports.all, ["marker"], "the file being written is reported when it is closed")
        close(fd)
        XCTAssertTrue(reports.wait(for: "slow.plist"))
    }

    func testReportsAFileRenamedIn() throws {
        let outside = "\(root!)/outside.tmp"
        writeFile(outside)
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        XCTAssertEqual(rename(outside, "\(folder)/moved.plist"), 0)
        XCTAssertTrue(reports.wait(for: "moved.plist"), "\(reports.all)")
        queue.sync {}
        XCTAssertEqual(reports.all, ["moved.plist"])
    }

    func testReportsTheTemporaryFileAndTheRenameOfAWriterUsingATemporaryName() throws {
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        writeFile("\(folder)/.photos.plist.tmp")
        XCTAssertEqual(rename("\(folder)/.photos.plist.tmp", "\(folder)/photos.plist"), 0)
        XCTAssertTrue(reports.wait(for: "photos.plist"))
        queue.sync {}
        XCTAssertEqual(reports.all, [".photos.plist.tmp", "photos.plist"], "in order; the caller filters names")
    }

    func testReportsNothingForAFileInASubfolder() throws {
        let sub = "\(folder)/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        writeFile("\(sub)/inner.plist")
        writeFile("\(root!)/beside.plist")
        XCTAssertEqual(rename("\(root!)/beside.plist", "\(sub)/moved.plist"), 0)
        unlink("\(folder)/nothing")
        // Events arrive in order: once the marker is reported, anything earlier would have been.
        writeFile("\(folder)/marker")
        XCTAssertTrue(reports.wait(for: "marker"))
        queue.sync {}
        XCTAssertEqual(reports.all, ["marker"])
    }

    func testReportsNothingForDeletionsOrCreationsWithoutAWrite() throws {
        writeFile("\(folder)/old.plist")
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        unlink("\(folder)/old.plist")
        try FileManager.default.createDirectory(atPath: "\(folder)/newdir", withIntermediateDirectories: false)
        XCTAssertEqual(rename("\(folder)/newdir", "\(root!)/gone"), 0)
        writeFile("\(folder)/marker")
        XCTAssertTrue(reports.wait(for: "marker"))
        queue.sync {}
        XCTAssertEqual(reports.all, ["marker"])
    }

    func testCancelStopsReports() throws {
        let (watcher, reports) = try watch()
        writeFile("\(folder)/before")
        XCTAssertTrue(reports.wait(for: "before"))
        queue.sync { watcher.cancel() }

        // A second watcher tells when the kernel has queued events for the folder.
        let (witness, witnessed) = try watch()
        defer { queue.sync { witness.cancel() } }
        writeFile("\(folder)/after")
        XCTAssertTrue(witnessed.wait(for: "after"))
        queue.sync {}
        usleep(20_000)
        queue.sync {}
        XCTAssertEqual(reports.all, ["before"], "nothing after cancel")
        watcher.cancel()  // a second cancel does no harm
    }

    func testManyFilesAreAllReported() throws {
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        let names = (0..<500).map { "f\($0).plist" }
        for name in names { writeFile("\(folder)/\(name)") }
        XCTAssertTrue(reports.wait(for: names.last!))
        queue.sync {}
        XCTAssertEqual(reports.all.compactMap { $0 }, names)
    }

    /// When the kernel's event queue overflows, the watcher says so with `nil`: the
    /// caller must rescan everything.
    func testReportsNilWhenTheKernelQueueOverflows() throws {
        let limitText = try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
        guard let limit = limitText.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), limit <= 65_536 else {
            throw XCTSkip("max_queued_events unknown or too large for a quick test")
        }
        let (watcher, reports) = try watch()
        defer { queue.sync { watcher.cancel() } }
        // Nothing is read while the queue is suspended; alternate two names so that the
        // kernel cannot merge identical consecutive events.
        queue.suspend()
        for index in 0...(limit + 10) {
            let fd = open("\(folder)/\(index % 2 == 0 ? "a" : "b")", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            close(fd)
        }
        queue.resume()
        XCTAssertTrue(reports.wait(for: nil), "no overflow report among \(reports.all.count) reports")
    }

    func testAMissingFolderIsAnError() {
        XCTAssertThrowsError(try watch("\(root!)/missing")) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ENOENT, "\(error)")
            XCTAssertTrue("\(error)".contains("missing"), "\(error)")
        }
    }

    func testAFileIsNotAFolderToWatch() {
        writeFile("\(root!)/file")
        XCTAssertThrowsError(try watch("\(root!)/file")) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ENOTDIR, "\(error)")
        }
    }
}
