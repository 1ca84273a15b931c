import DarkroomCore
import DarkroomStorage
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class JournalWriterTests: XCTestCase {
    private var folder: String!
    private var path: String { "\(folder!)/journal.jsonl" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "journal-writer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func record(_ number: Int, event: JournalEvent = .entryQueued, entry: String? = nil) -> JournalRecord {
        JournalRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)), event: event, host: "host-a", pid: 4242,
            manifest: "photos", entry: entry ?? "photo \(number)", fields: [JournalField("n", .int(number))])
    }

    private func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { Array($0) } ?? []
    }

    private func lines(_ path: String) -> [ArraySlice<UInt8>] {
        bytes(path).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { $0 }
    }

    /// A full disk can cut an append part-way; the next append starts on a line of its
    /// own, so only the cut record is lost. The file-size limit (with SIGXFSZ ignored)
    /// makes write(2) stop part-way, as ENOSPC does.
    func testAnAppendCutShortByAFullDiskDoesNotRunIntoTheNext() throws {
        let writer = try JournalWriter(path: path)
        try writer.append(record(1))
        let size = bytes(path).count
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var saved = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        var limited = saved
        limited.rlim_cur = rlim_t(size + 40)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited)
        XCTAssertThrowsError(try writer.append(record(2)))
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        signal(SIGXFSZ, previousHandler)
        XCTAssertEqual(bytes(path).count, size + 40, "the cut append left 40 bytes")

        try writer.append(record(3))
        let written = lines(path)
        guard written.count == 3 else { return XCTFail("\(written.count) lines: the fragment ran into the next record") }
        XCTAssertEqual(JournalRecord(line: written[0]), record(1))
        XCTAssertNil(JournalRecord(line: written[1]), "the fragment stands alone")
        XCTAssertEqual(JournalRecord(line: written[2]), record(3))
        XCTAssertEqual(try JournalReader(path: path).records(), [record(1), record(3)])
    }

    func testEachAppendIsOneLineThatReadsBack() throws {
        let writer = try JournalWriter(path: path)
        let records = [record(1), record(2, event: .manifestClaimed), record(3, event: .daemonStopped, entry: "")]
        for record in records { try writer.append(record) }
        let written = bytes(path)
        XCTAssertEqual(written, records.flatMap { $0.encodedLine() })
        XCTAssertEqual(written.last, UInt8(ascii: "\n"))
        XCTAssertEqual(lines(path).count, 3)
        XCTAssertEqual(lines(path).compactMap { JournalRecord(line: $0) }, records)
    }

    func testAppendsToAnExistingJournal() throws {
        try JournalWriter(path: path).append(record(1))
        try JournalWriter(path: path).append(record(2))
        XCTAssertEqual(bytes(path), record(1).encodedLine() + record(2).encodedLine(), "no newline added to a whole line")
    }

    func testAnEmptyExistingFileGetsNoNewline() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        try JournalWriter(path: path).append(record(1))
        XCTAssertEqual(bytes(path), record(1).encodedLine())
    }

    func testATornLastLineGetsANewlineBeforeTheNextRecord() throws {
        let whole = record(1).encodedLine()
        let torn = Array(record(2).encodedLine().prefix(25))
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(whole + torn)))
        let writer = try JournalWriter(path: path)
        try writer.append(record(3))
        XCTAssertEqual(bytes(path), whole + torn + [UInt8(ascii: "\n")] + record(3).encodedLine())
        XCTAssertEqual(try JournalReader(path: path).records(), [record(1), record(3)], "the torn line is skipped")
    }

    func testOpeningTwiceRepairsOnlyOnce() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("{\"time\":".utf8)))
        _ = try JournalWriter(path: path)
        _ = try JournalWriter(path: path)
        XCTAssertEqual(bytes(path), Array("{\"time\":\n".utf8))
    }

    func testTheFileIsCreatedWithMode0644BeforeTheUmask() throws {
        let mask = umask(0o022)
        umask(mask)
        _ = try JournalWriter(path: path)
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG)
        XCTAssertEqual(info.st_mode & 0o7777, 0o644 & ~mask, String(info.st_mode & 0o7777, radix: 8))
    }

    func testAnExistingFileKeepsItsMode() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        XCTAssertEqual(chmod(path, 0o600), 0)
        try JournalWriter(path: path).append(record(1))
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o600)
    }

    func testAMissingFolderIsAStorageError() {
        XCTAssertThrowsError(try JournalWriter(path: "\(folder!)/missing/journal.jsonl")) { error in
            XCTAssertEqual((error as? StorageError)?.errno, ENOENT, "\(error)")
        }
    }

    func testReopenAfterRotationWritesToANewFile() throws {
        let writer = try JournalWriter(path: path)
        try writer.append(record(1))
        XCTAssertEqual(rename(path, path + ".1"), 0)
        try writer.append(record(2))  // still the old file, as with any log until it is reopened
        try writer.reopen()
        try writer.append(record(3))
        try writer.sync()
        XCTAssertEqual(try JournalReader(path: path + ".1").records(), [record(1), record(2)])
        XCTAssertEqual(try JournalReader(path: path).records(), [record(3)])
    }

    func testReopenWithoutRotationKeepsAppending() throws {
        let writer = try JournalWriter(path: path)
        try writer.append(record(1))
        try writer.reopen()
        try writer.append(record(2))
        XCTAssertEqual(try JournalReader(path: path).records(), [record(1), record(2)])
    }

    func testReopenWhenTheFolderIsGoneThrowsAndKeepsTheOldFile() throws {
        let sub = "\(folder!)/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let writer = try JournalWriter(path: "\(sub)/journal.jsonl")
        XCTAssertEqual(rename(sub, "\(folder!)/moved"), 0)
        XCTAssertThrowsError(try writer.reopen())
        try writer.append(record(1))
        XCTAssertEqual(try JournalReader(path: "\(folder!)/moved/journal.jsonl").records(), [record(1)])
    }

    func testSyncAndDurableEventsDoNotThrow() throws {
        let writer = try JournalWriter(path: path)
        for event in JournalEvent.allCases { try writer.append(record(1, event: event)) }
        try writer.sync()
        XCTAssertEqual(try JournalReader(path: path).records().map(\.event), JournalEvent.allCases)
    }

    /// 8 threads × 2,000 records through one writer: every line is whole and parses,
    /// and every record is there once.
    func testConcurrentAppendsFromManyThreadsKeepEveryLineWhole() throws {
        let writer = try JournalWriter(path: path)
        let threads = 8
        let perThread = 2_000
        let padding = String(repeating: "x", count: 300)
        let errors = ErrorList()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                // A long entry name makes lines of ~500 bytes, so that torn writes would show.
                let record = JournalRecord(
                    time: Date(timeIntervalSince1970: 1_800_000_000), event: .entryDownloading, host: "h", pid: Int32(thread),
                    manifest: "m", entry: "t\(thread)-\(index)-" + padding,
                    fields: [JournalField("thread", .int(thread)), JournalField("index", .int(index))])
                do { try writer.append(record) } catch { errors.add(error) }
            }
        }
        XCTAssertEqual(errors.all, [])
        try writer.sync()
        let all = lines(path)
        XCTAssertEqual(all.count, threads * perThread)
        var seen = Set<Int>()
        var unparsed = 0
        for line in all {
            guard let record = JournalRecord(line: line), let thread = record.int("thread"), let index = record.int("index") else {
                unparsed += 1
                continue
            }
            XCTAssertEqual(record.entry, "t\(thread)-\(index)-" + padding)
            seen.insert(thread * perThread + index)
        }
        XCTAssertEqual(unparsed, 0)
        XCTAssertEqual(seen.count, threads * perThread)
    }

    /// Two writers on one file (two daemons sharing a journal, SPEC §7) never split each other's lines.
    func testTwoWritersOnOneFileInterleaveWholeLines() throws {
        let first = try JournalWriter(path: path)
        let second = try JournalWriter(path: path)
        DispatchQueue.concurrentPerform(iterations: 2) { which in
            let writer = which == 0 ? first : second
            for index in 0..<1_000 {
                try? writer.append(
                    JournalRecord(
                        time: Date(timeIntervalSince1970: 1_800_000_000), event: .entryQueued, host: "h\(which)",
                        pid: Int32(which), manifest: "m", entry: "\(index)"))
            }
        }
        let records = try JournalReader(path: path).records()
        XCTAssertEqual(records.count, 2_000)
        XCTAssertEqual(records.filter { $0.host == "h0" }.map(\.entry), (0..<1_000).map { "\($0)" })
        XCTAssertEqual(records.filter { $0.host == "h1" }.map(\.entry), (0..<1_000).map { "\($0)" })
    }
}

/// Errors met on several threads.
private final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func add(_ error: any Error) { lock.withLock { errors.append("\(error)") } }
    var all: [String] { lock.withLock { errors } }
}
