import DarkroomCore
@testable import DarkroomDaemon
import DarkroomNetwork
import Foundation
import XCTest

let fixtureFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("DarkroomImagingTests/Fixtures")

func fixtureData(_ name: String) -> Data {
    try! Data(contentsOf: fixtureFolder.appendingPathComponent(name))
}

/// A `Downloader` that answers from a table, for tests of everything but HTTP.
final class StubDownloader: Downloader, @unchecked Sendable {
    enum Answer: Sendable {
        case bytes(Data)
        case failure(DownloadFailure)
        /// Fails with the first failures, then answers the bytes.
        case flaky(failures: [DownloadFailure], then: Data)
        /// Waits (cancellably) before answering.
        case slow(seconds: Double, Data)
        /// Never answers until cancelled.
        case hang
    }

    private let lock = NSLock()
    private var answers: [String: Answer] = [:]
    private var calls: [String: Int] = [:]
    private var running = 0
    private(set) var maxRunning = 0

    func answer(_ url: String, _ answer: Answer) {
        lock.withLock { answers[url] = answer }
    }

    func callCount(_ url: String) -> Int { lock.withLock { calls[url, default: 0] } }
    var peakConcurrency: Int { lock.withLock { maxRunning } }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        let url = request.url.absoluteString
        let (answer, call): (Answer?, Int) = lock.withLock {
            calls[url, default: 0] += 1
            running += 1
            maxRunning = max(maxRunning, running)
            return (answers[url], calls[url]!)
        }
        defer { lock.withLock { running -= 1 } }
        var data: Data
        switch answer {
        case nil: throw DownloadFailure.http(status: 404, reason: "Not Found", retryAfter: nil)
        case .bytes(let bytes)?: data = bytes
        case .failure(let failure)?: throw failure
        case .flaky(let failures, let bytes)?:
            if call <= failures.count { throw failures[call - 1] }
            data = bytes
        case .slow(let seconds, let bytes)?:
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            data = bytes
        case .hang?:
            while true { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        if data.count > request.maxBytes { throw DownloadFailure.tooLarge(limit: request.maxBytes) }
        try data.write(to: URL(fileURLWithPath: request.destination))
        return DownloadResponse(bytes: data.count, contentType: nil, finalURL: request.url)
    }
}

/// A daemon on temporary folders, with its journal records collected in memory.
final class DaemonHarness: @unchecked Sendable {
    let root: URL
    let inbox: URL
    let outbox: URL
    let downloader = StubDownloader()
    private(set) var daemon: Daemon!
    private let condition = NSCondition()
    private var records: [JournalRecord] = []

    init(root: URL? = nil) throws {
        self.root = root ?? FileManager.default.temporaryDirectory.appendingPathComponent("daemon-\(UUID().uuidString)")
        inbox = self.root.appendingPathComponent("inbox")
        outbox = self.root.appendingPathComponent("outbox")
    }

    func configuration(_ adjust: (inout DaemonConfiguration) -> Void = { _ in }) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(inbox: inbox.path, outbox: outbox.path)
        configuration.filterConcurrency = 2
        configuration.downloadConcurrency = 4
        configuration.retryBaseDelay = 0.01
        configuration.retryMaxDelay = 0.05
        configuration.rescanInterval = 60
        adjust(&configuration)
        return configuration
    }

    @discardableResult
    func start(_ adjust: (inout DaemonConfiguration) -> Void = { _ in }) throws -> Daemon {
        let daemon = Daemon(configuration: configuration(adjust), downloader: downloader) { [weak self] record in
            guard let self else { return }
            condition.withLock {
                records.append(record)
                condition.broadcast()
            }
        }
        try daemon.start()
        self.daemon = daemon
        return daemon
    }

    func stop() {
        daemon.stop()
        XCTAssertTrue(waitFor(timeout: 5) { $0.contains { $0.event == .daemonStopped } }, "daemon did not stop")
    }

    var journal: [JournalRecord] { condition.withLock { records } }

    /// Waits until `predicate` holds for the records seen so far.
    @discardableResult
    func waitFor(timeout: Double = 10, _ predicate: ([JournalRecord]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while !predicate(records) {
                if !condition.wait(until: deadline) { return predicate(records) }
            }
            return true
        }
    }

    func waitForFinished(_ manifest: String, count: Int = 1, timeout: Double = 15) -> Bool {
        waitFor(timeout: timeout) { records in
            records.filter { $0.event == .manifestFinished && $0.manifest == manifest }.count >= count
        }
    }

    /// Writes a manifest into the inbox the way a careful writer does: temporary name, then rename.
    func drop(_ name: String, _ plist: Any) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try dropRaw("\(name).plist", data)
    }

    func dropRaw(_ fileName: String, _ data: Data) throws {
        let temporary = inbox.appendingPathComponent(".\(fileName).tmp")
        try data.write(to: temporary)
        try FileManager.default.moveItem(at: temporary, to: inbox.appendingPathComponent(fileName))
    }

    func events(_ event: JournalEvent, manifest: String? = nil) -> [JournalRecord] {
        journal.filter { $0.event == event && (manifest == nil || $0.manifest == manifest) }
    }

    func result(_ manifest: String) throws -> ManifestResult {
        try ManifestResult(propertyListData: Data(contentsOf: outbox.appendingPathComponent("\(manifest)/result.plist")))
    }

    func files(in manifest: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: outbox.appendingPathComponent(manifest).path)) ?? []).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }
}
