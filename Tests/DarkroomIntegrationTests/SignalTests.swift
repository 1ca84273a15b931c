import DarkroomCore
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `darkroom run` as a process: SIGHUP, SIGUSR1/SIGUSR2, SIGINT (SPEC §5), and how it
/// refuses a bad command line or an outbox it cannot create (SPEC §1).
final class SignalTests: XCTestCase {
    private var server: FaultServer!
    private var site: Site!

    override func setUpWithError() throws {
        server = try FaultServer.start()
        server.route("/a.jpg", .bytes(fixture("jpeg-420.jpg")))
        server.route("/b.png", .bytes(fixture("png-rgb8-7x5.png"), contentType: "image/png"))
        server.route("/hang.jpg", .hangBeforeHeaders)
        site = Site()
    }

    override func tearDown() {
        site = nil
        server.shutdown()
    }

    private func photos(_ count: Int, _ tag: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("\(tag)\($0)", server.url(($0 % 2 == 0 ? "/a.jpg" : "/b.png") + "?\(tag)\($0)")) })
    }

    private func isFinished(_ manifest: String) -> ([JournalRecord]) -> Bool {
        { $0.contains { $0.event == .manifestFinished && $0.manifest == manifest } }
    }

    private func records(at path: String) -> [JournalRecord] {
        (try? JournalReader(path: path).records()) ?? []
    }

    // MARK: SIGHUP

    /// Log rotation: the journal is moved away, SIGHUP, and the daemon writes a new
    /// file at the configured path; nothing more goes to the moved one.
    func testSIGHUPReopensTheJournal() throws {
        let daemon = try site.startDaemon()
        try site.drop("before", photos(2, "b"))
        XCTAssertTrue(site.waitFor(isFinished("before")), site.daemonLog())

        let rotated = site.journalPath + ".1"
        try FileManager.default.moveItem(atPath: site.journalPath, toPath: rotated)
        let linesAtRotation = records(at: rotated).count
        kill(daemon.processIdentifier, SIGHUP)
        XCTAssertTrue(waitUntil { FileManager.default.fileExists(atPath: self.site.journalPath) }, "SIGHUP creates a new journal")

        try site.drop("after", photos(3, "a"))
        XCTAssertTrue(site.waitFor(isFinished("after")), site.daemonLog())
        let fresh = site.records()
        XCTAssertEqual(fresh.first?.event, .manifestClaimed, "the new file starts with the first event after SIGHUP")
        XCTAssertEqual(fresh.filter { $0.event == .entryFiltered && $0.manifest == "after" }.count, 3)
        XCTAssertEqual(try site.result("after").counts.filtered, 3)

        XCTAssertLessThan(site.stop(daemon), 1.5)
        XCTAssertEqual(daemon.terminationStatus, 0, site.daemonLog())
        XCTAssertEqual(site.records().last?.event, .daemonStopped, "the daemon goes on writing to the new file")
        let old = records(at: rotated)
        XCTAssertEqual(old.count, linesAtRotation, "nothing is written to the rotated file after SIGHUP")
        XCTAssertEqual(old.last?.event, .manifestFinished)
        XCTAssertFalse(old.contains { $0.manifest == "after" })
    }

    /// A file linked into the inbox makes no inotify event the daemon listens to (no
    /// close after writing, no rename): with a long rescan interval only SIGHUP finds it.
    func testSIGHUPRescansTheInbox() throws {
        let daemon = try site.startDaemon(["--rescan-interval", "3600"])
        // A first manifest proves the inbox is watched and lets the start-up scan pass.
        try site.drop("first", photos(1, "f"))
        XCTAssertTrue(site.waitFor(isFinished("first")), site.daemonLog())

        let outside = site.root.appendingPathComponent("linked.plist").path
        let data = try PropertyListSerialization.data(fromPropertyList: photos(2, "l"), format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: outside))
        XCTAssertEqual(link(outside, "\(site.inbox)/linked.plist"), 0, String(cString: strerror(errno)))
        // Absence can only be shown by waiting a little: the daemon leaves it alone.
        XCTAssertFalse(site.waitFor(timeout: 0.5) { $0.contains { $0.manifest == "linked" } }, "claimed without a rescan")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(site.inbox)/linked.plist"))

        kill(daemon.processIdentifier, SIGHUP)
        XCTAssertTrue(site.waitFor(isFinished("linked")), site.daemonLog())
        XCTAssertEqual(try site.result("linked").counts.filtered, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(site.inbox)/linked.plist"))
        XCTAssertEqual(records(at: site.journalPath).filter { $0.event == .manifestClaimed && $0.manifest == "linked" }.count, 1)
        XCTAssertTrue(daemon.isRunning, "SIGHUP does not stop the daemon")
    }

    /// `daemon.started` is journaled before the daemon handles signals; a claimed
    /// manifest shows that it does (the inbox is scanned after the handlers are set).
    private func waitUntilReady() throws {
        try site.drop("ready", photos(1, "r"))
        XCTAssertTrue(site.waitFor(isFinished("ready")), site.daemonLog())
    }

    // MARK: SIGUSR1 / SIGUSR2

    func testSIGUSR1PausesAndSIGUSR2Resumes() throws {
        let daemon = try site.startDaemon()
        try waitUntilReady()
        let requestsBefore = server.requestCount("/a.jpg") + server.requestCount("/b.png")
        kill(daemon.processIdentifier, SIGUSR1)
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .daemonPaused } }, site.daemonLog())

        try site.drop("waiting", photos(4, "w"))
        XCTAssertTrue(site.waitFor { $0.filter { $0.event == .entryQueued && $0.manifest == "waiting" }.count == 4 }, "claimed while paused")
        let started: ([JournalRecord]) -> Bool = { records in
            records.contains { ($0.event == .entryDownloading || $0.event == .entryFiltering) && $0.manifest == "waiting" }
        }
        XCTAssertFalse(site.waitFor(timeout: 1, started), "nothing starts while paused")
        XCTAssertEqual(server.requestCount("/a.jpg") + server.requestCount("/b.png"), requestsBefore, "no download while paused")

        kill(daemon.processIdentifier, SIGUSR2)
        XCTAssertTrue(site.waitFor(isFinished("waiting")), site.daemonLog())
        // (The queues are resumed just before `daemon.resumed` is appended, so a first
        // `entry.downloading` may precede it in the file: no order is asserted here.)
        XCTAssertEqual(site.records().filter { $0.event == .daemonResumed }.count, 1)
        XCTAssertEqual(try site.result("waiting").counts.filtered, 4)
        XCTAssertTrue(daemon.isRunning)
    }

    func testSIGTERMWhilePausedStillStopsWithinASecond() throws {
        let daemon = try site.startDaemon(["--download-concurrency", "2"])
        try waitUntilReady()
        kill(daemon.processIdentifier, SIGUSR1)
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .daemonPaused } }, site.daemonLog())
        try site.drop("held", photos(20, "h"))
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .manifestClaimed && $0.manifest == "held" } })
        let seconds = site.stop(daemon)
        XCTAssertFalse(daemon.isRunning)
        XCTAssertEqual(daemon.terminationStatus, 0, site.daemonLog())
        XCTAssertLessThan(seconds, 1.5, "SPEC §5: within one second, paused or not")
        XCTAssertEqual(site.records().last?.event, .daemonStopped)
        XCTAssertFalse(site.records().contains { $0.event == .manifestFinished && $0.manifest == "held" })
    }

    // MARK: SIGINT

    func testSIGINTStopsLikeSIGTERM() throws {
        let daemon = try site.startDaemon()
        try site.drop("stuck", ["h1": server.url("/hang.jpg?1"), "h2": server.url("/hang.jpg?2")])
        XCTAssertTrue(site.waitFor { $0.filter { $0.event == .entryDownloading }.count == 2 }, site.daemonLog())
        let seconds = site.stop(daemon, signal: SIGINT)
        XCTAssertFalse(daemon.isRunning)
        XCTAssertEqual(daemon.terminationReason, .exit, "SIGINT is handled, not fatal")
        XCTAssertEqual(daemon.terminationStatus, 0, site.daemonLog())
        XCTAssertLessThan(seconds, 1.5)
        let records = site.records()
        XCTAssertEqual(records.last?.event, .daemonStopped)
        XCTAssertTrue(records.contains { $0.event == .daemonStopping })
        XCTAssertEqual(
            Set(records.filter { $0.event == .entryCancelled && $0.string("reason") == "shutdown" }.compactMap(\.entry)), ["h1", "h2"])
        XCTAssertFalse(records.contains { $0.event == .manifestFinished }, "left for the next start to resume")
    }

    // MARK: Refusing to start

    func testABadRunCommandLineExitsTwoWithOneLine() throws {
        try FileManager.default.createDirectory(at: site.root, withIntermediateDirectories: true)
        let folders = ["--inbox", site.inbox, "--outbox", site.outbox]
        let cases: [[String]] = [
            ["run"] + folders + ["--quality", "0"],
            ["run"] + folders + ["--quality", "101"],
            ["run"] + folders + ["--download-concurrency", "0"],
            ["run"] + folders + ["--filter-concurrency", "0"],
            ["run"] + folders + ["--retries", "-1"],
            ["run"] + folders + ["--timeout", "0"],
            ["run"] + folders + ["--connect-timeout", "-2"],
            ["run"] + folders + ["--max-download-bytes", "0"],
            ["run"] + folders + ["--rescan-interval", "0"],
            ["run"] + folders + ["--format", "gif"],
            ["run"] + folders + ["--quality", "high"],
            ["run"] + folders + ["--no-such-option"],
            ["run", "--outbox", site.outbox],
            ["run", "--inbox", site.inbox],
        ]
        for arguments in cases {
            let result = try runDarkroom(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments.suffix(2)): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments.suffix(2)): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("darkroom: "), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: site.inbox), "nothing is created before the command line is checked")
        XCTAssertFalse(FileManager.default.fileExists(atPath: site.outbox))
    }

    func testAnOutboxThatCannotBeCreatedExitsOneWithAReason() throws {
        let file = site.root.appendingPathComponent("plain-file").path
        try FileManager.default.createDirectory(at: site.root, withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [(arguments: [String], path: String)] = [
            (["--inbox", site.inbox, "--outbox", "\(file)/outbox"], "\(file)/outbox"),
            (["--inbox", "\(file)/inbox", "--outbox", site.outbox], "\(file)/inbox"),
            (["--inbox", site.inbox, "--outbox", site.outbox, "--journal", "\(file)/journal.jsonl"], "\(file)/journal.jsonl"),
        ]
        for (arguments, path) in cases {
            let result = try runDarkroom(["run"] + arguments)
            XCTAssertEqual(result.status, 1, "\(path): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("darkroom: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(path), "the reason names the path: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("Not a directory"), "the reason says why: \(result.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), Data("not a folder".utf8))
    }

    // MARK: Helpers

    private func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Runs `darkroom arguments` to the end (killed after `timeout` seconds: a command
    /// line that should have been refused may have started a daemon).
    private func runDarkroom(_ arguments: [String], timeout: Double = 10) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = darkroomBinary
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            XCTFail("\(arguments) still running after \(timeout) s")
        }
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }
}
