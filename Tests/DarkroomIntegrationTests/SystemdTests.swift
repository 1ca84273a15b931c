import DarkroomCore
import DarkroomTestSupport
import Foundation
import XCTest

/// `darkroom run` as systemd runs it: the notify socket, the watchdog, journald log levels,
/// and the config file.
final class SystemdTests: XCTestCase {
    private var server: FaultServer!
    private var site: Site!

    override func setUpWithError() throws {
        server = try FaultServer.start()
        server.route("/a.jpg", .bytes(fixture("jpeg-420.jpg")))
        site = Site()
    }

    override func tearDown() {
        site = nil
        server.shutdown()
    }

    func testNotifiesReadyStatusWatchdogAndStopping() throws {
        let notify = try FakeNotifySocket(abstract: true)
        let daemon = try site.startDaemon(environment: ["NOTIFY_SOCKET": notify.name, "WATCHDOG_USEC": "200000"])
        let first = notify.receive { $0.contains { $0.hasPrefix("READY=1") } }
        let ready = try XCTUnwrap(first.first { $0.hasPrefix("READY=1") }, "\(first)")
        XCTAssertTrue(ready.contains("STATUS=0 manifests · 0 filtered"), ready)
        // A manifest dropped right after READY=1 is processed.
        try site.drop("after-ready", ["a": server.url("/a.jpg"), "b": server.url("/a.jpg?b")])
        let later = notify.receive { messages in messages.contains { $0.hasPrefix("STATUS=") && $0.contains("2 filtered") } }
        XCTAssertTrue(later.contains { $0.hasPrefix("STATUS=") && $0.contains("2 filtered") }, "\(later)")
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .manifestFinished } })
        // WATCHDOG_USEC=0.2 s: a ping every 0.1 s.
        let pings = notify.receive(timeout: 2) { $0.filter { $0 == "WATCHDOG=1" }.count >= 3 }
        XCTAssertGreaterThanOrEqual(pings.filter { $0 == "WATCHDOG=1" }.count, 3, "\(pings)")
        _ = site.stop(daemon)
        XCTAssertEqual(daemon.terminationStatus, 0)
        let last = notify.receive { $0.contains { $0.hasPrefix("STOPPING=1") } }
        XCTAssertTrue(last.contains { $0.hasPrefix("STOPPING=1") }, "\(last)")
    }

    func testStatusLinesAreRateLimited() throws {
        let notify = try FakeNotifySocket(abstract: false)
        try site.startDaemon(environment: ["NOTIFY_SOCKET": notify.name])
        _ = notify.receive { $0.contains { $0.hasPrefix("READY=1") } }
        var photos: [String: String] = [:]
        for i in 0..<60 { photos["p\(i)"] = server.url("/a.jpg?\(i)") }
        let started = Date()
        try site.drop("many", photos)
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .manifestFinished } })
        let seconds = Date().timeIntervalSince(started)
        let statuses = notify.receive(timeout: 1.5) { _ in false }.filter { $0.hasPrefix("STATUS=") }
        // Hundreds of journal events, at most about one STATUS= a second (plus the final one).
        XCTAssertLessThanOrEqual(statuses.count, Int(seconds) + 3, "\(statuses.count) lines in \(seconds) s")
        XCTAssertTrue(statuses.last?.contains("60 filtered") ?? false, "\(statuses)")
    }

    func testLogLinesCarryPriorityPrefixesOnlyWhenStderrIsTheJournal() throws {
        try site.startDaemon()
        // The line may follow daemon.started by a moment.
        XCTAssertTrue(site.waitForLog(0) { $0.contains("darkroom: notice: watching ") }, site.daemonLog(0))
        XCTAssertFalse(site.daemonLog(0).contains("<5>"))

        // JOURNAL_STREAM names the device and inode of the daemon's stderr (its log file here).
        FileManager.default.createFile(atPath: site.logPath(1), contents: nil)
        var info = stat()
        XCTAssertEqual(stat(site.logPath(1), &info), 0)
        try site.startDaemon(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
        XCTAssertTrue(site.waitForLog(1) { $0.hasPrefix("<5>watching ") }, site.daemonLog(1))
        XCTAssertFalse(site.daemonLog(1).contains("darkroom: notice:"))
    }

    func testTheConfigFileSetsOptionsAndTheCommandLineWins() throws {
        let config = site.root.appendingPathComponent("darkroom.toml")
        try FileManager.default.createDirectory(at: site.root, withIntermediateDirectories: true)
        try """
            # test configuration
            download-concurrency = 3
            filter-concurrency = 1
            log-level = "warning"
            """.write(to: config, atomically: true, encoding: .utf8)
        try site.startDaemon(["--config", config.path])
        try site.startDaemon(["--config", config.path, "--download-concurrency", "5"])
        let started = site.records().filter { $0.event == .daemonStarted }
        XCTAssertEqual(started.map { $0.int("download_concurrency") }, [3, 5])
        XCTAssertEqual(started.map { $0.int("filter_concurrency") }, [1, 1])
        XCTAssertFalse(site.daemonLog(0).contains("notice"), "log-level = warning hides notices")
    }

    func testConfigFileErrorsExitTwoNamingFileLineAndKey() throws {
        try FileManager.default.createDirectory(at: site.root, withIntermediateDirectories: true)
        let cases = [
            ("threads = 4", ":1: key 'threads': unknown option"),
            ("\nquality = 0", ":2: key 'quality': must be between 1 and 100"),
            ("retries = \"x\"", ":1: key 'retries': expected an integer"),
            ("format = gif", ":1: key 'format': 'gif' is not a value"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let config = site.root.appendingPathComponent("bad\(index).toml")
            try text.write(to: config, atomically: true, encoding: .utf8)
            let daemon = try site.startDaemon(["--config", config.path], waitForStart: false)
            daemon.waitUntilExit()
            XCTAssertEqual(daemon.terminationStatus, 2, text)
            let log = site.daemonLog(index)
            XCTAssertTrue(log.contains(config.path + expected), "\(text): \(log)")
            XCTAssertEqual(log.split(separator: "\n").count, 1, log)
        }
    }
}
