import DarkroomCore
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("DarkroomImagingTests/Fixtures")

func fixture(_ name: String) -> Data { try! Data(contentsOf: fixtures.appendingPathComponent(name)) }

/// The built `darkroom` executable, next to the test bundle.
let darkroomBinary: URL = {
    let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
        ?? Bundle.main.bundleURL
    return products.appendingPathComponent("darkroom")
}()

/// Folders for daemons under test, and the daemons themselves as child processes.
final class Site: @unchecked Sendable {
    let root: URL
    var inbox: String { root.appendingPathComponent("inbox").path }
    var outbox: String { root.appendingPathComponent("outbox").path }
    var journalPath: String { "\(outbox)/journal.jsonl" }
    private var processes: [Process] = []

    /// - Parameter base: the folder to make the site in; the temporary folder by default.
    init(base: URL = FileManager.default.temporaryDirectory) {
        root = base.appendingPathComponent("site-\(UUID().uuidString)")
    }

    /// Starts `darkroom run` on this site's folders; stderr goes to a file beside them.
    @discardableResult
    func startDaemon(_ extra: [String] = [], environment: [String: String] = [:], waitForStart: Bool = true) throws -> Process {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = darkroomBinary
        process.arguments = ["run", "--inbox", inbox, "--outbox", outbox, "--retry-base-delay", "0.05"] + extra
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let log = root.appendingPathComponent("daemon-\(processes.count).log")
        // A test may have made it already, to know its inode (JOURNAL_STREAM).
        if !FileManager.default.fileExists(atPath: log.path) {
            FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        if waitForStart {
            XCTAssertTrue(waitFor(timeout: 10) { $0.contains { $0.event == .daemonStarted && $0.pid == process.processIdentifier } })
        }
        return process
    }

    /// The daemon started last.
    var lastProcess: Process? { processes.last }

    func records() -> [JournalRecord] {
        (try? JournalReader(path: journalPath).records()) ?? []
    }

    @discardableResult
    func waitFor(timeout: Double = 20, _ predicate: ([JournalRecord]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(records()) { return true }
            usleep(20_000)
        }
        return predicate(records())
    }

    func hasResult(_ manifest: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(outbox)/\(manifest)/result.plist")
    }

    /// Waits for `manifest`'s result.plist: cheaper than reading the journal when it is long.
    @discardableResult
    func waitForResult(_ manifest: String, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline && !hasResult(manifest) { usleep(20_000) }
        return hasResult(manifest)
    }

    func finishedCount(_ manifest: String) -> Int {
        records().filter { $0.event == .manifestFinished && $0.manifest == manifest }.count
    }

    func drop(_ name: String, _ plist: Any) throws {
        try drop(name: name, data: PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0))
    }

    /// Writes `data` under a dot name, then renames it to `name.plist`, as a careful writer does.
    func drop(name: String, data: Data) throws {
        let temporary = URL(fileURLWithPath: inbox).appendingPathComponent(".\(name).plist.tmp")
        try data.write(to: temporary)
        try FileManager.default.moveItem(atPath: temporary.path, toPath: "\(inbox)/\(name).plist")
    }

    func result(_ manifest: String) throws -> ManifestResult {
        try ManifestResult(propertyListData: Data(contentsOf: URL(fileURLWithPath: "\(outbox)/\(manifest)/result.plist")))
    }

    /// Sends `signal` and waits for the process to exit; returns the seconds it took.
    func stop(_ process: Process, signal: Int32 = SIGTERM, timeout: Double = 10) -> Double {
        let started = Date()
        kill(process.processIdentifier, signal)
        while process.isRunning && Date().timeIntervalSince(started) < timeout { usleep(2_000) }
        return Date().timeIntervalSince(started)
    }

    /// Every file under the outbox and inbox whose name says it is temporary.
    func temporaryFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if AtomicFile.isTemporary(name) || name.hasSuffix(".part") { found.append(path) }
        }
        return found
    }

    /// Waits until daemon `index`'s log satisfies `predicate`.
    func waitForLog(_ index: Int, timeout: Double = 5, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline && !predicate(daemonLog(index)) { usleep(10_000) }
        return predicate(daemonLog(index))
    }

    func logPath(_ index: Int) -> String { root.appendingPathComponent("daemon-\(index).log").path }

    func daemonLog(_ index: Int = 0) -> String {
        (try? String(contentsOf: root.appendingPathComponent("daemon-\(index).log"), encoding: .utf8)) ?? ""
    }

    deinit {
        for process in processes where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }
}
