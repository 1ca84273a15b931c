import DarkroomSystem
import DarkroomTestSupport
import Foundation
import Logging
import XCTest

final class SystemdNotifierTests: XCTestCase {
    func testNoSocketNoNotifier() {
        XCTAssertNil(SystemdNotifier(environment: [:]))
        XCTAssertNil(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]))
    }

    func testSendsDatagramsToAPathAndToAnAbstractSocket() throws {
        for abstract in [false, true] {
            let socket = try FakeNotifySocket(abstract: abstract)
            let notifier = try XCTUnwrap(SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name]))
            XCTAssertNil(notifier.send("READY=1\nSTATUS=ok"))
            XCTAssertNil(notifier.send("STOPPING=1"))
            XCTAssertEqual(socket.receive { $0.count == 2 }, ["READY=1\nSTATUS=ok", "STOPPING=1"], "abstract: \(abstract)")
        }
    }

    func testAMissingSocketIsAnErrorNotACrash() throws {
        let notifier = try XCTUnwrap(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]))
        XCTAssertEqual(notifier.send("READY=1"), ENOENT)
    }

    func testWatchdogIntervalIsHalfTheTimeoutAndOnlyForThisProcess() throws {
        let env = ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000"]
        XCTAssertEqual(SystemdNotifier(environment: env, pid: 42)?.watchdogInterval, 15)
        XCTAssertEqual(SystemdNotifier(environment: env.merging(["WATCHDOG_PID": "42"]) { $1 }, pid: 42)?.watchdogInterval, 15)
        XCTAssertNil(SystemdNotifier(environment: env.merging(["WATCHDOG_PID": "41"]) { $1 }, pid: 42)?.watchdogInterval)
        XCTAssertNil(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x"])?.watchdogInterval)
    }
}

final class StderrLogHandlerTests: XCTestCase {
    func testPriorityPrefixesUnderTheJournalAndPlainLinesOtherwise() {
        XCTAssertEqual(StderrLogHandler.format(level: .error, message: "disk full", metadata: [:], prefixed: true), "<3>disk full\n")
        XCTAssertEqual(StderrLogHandler.format(level: .warning, message: "w", metadata: [:], prefixed: true), "<4>w\n")
        XCTAssertEqual(StderrLogHandler.format(level: .info, message: "i", metadata: [:], prefixed: true), "<6>i\n")
        XCTAssertEqual(StderrLogHandler.format(level: .debug, message: "d", metadata: [:], prefixed: true), "<7>d\n")
        XCTAssertEqual(
            StderrLogHandler.format(level: .warning, message: "slow", metadata: ["manifest": "a"], prefixed: false),
            "darkroom: warning: slow manifest=a\n")
    }

    func testOneRecordIsAlwaysOneLine() {
        XCTAssertEqual(StderrLogHandler.format(level: .error, message: "a\nb\rc", metadata: [:], prefixed: true), "<3>a b c\n")
    }

    func testJournalStreamMustNameOurStderr() throws {
        var info = stat()
        XCTAssertEqual(fstat(2, &info), 0)
        let ours = "\(info.st_dev):\(info.st_ino)"
        XCTAssertTrue(StderrLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": ours]))
        XCTAssertFalse(StderrLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        XCTAssertFalse(StderrLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
        XCTAssertFalse(StderrLogHandler.stderrIsJournal(environment: [:]))
    }
}
