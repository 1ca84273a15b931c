import DarkroomCore
import DarkroomStorage
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class JournalReaderTests: XCTestCase {
    private var folder: String!
    private var path: String { "\(folder!)/journal.jsonl" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "journal-reader-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func record(_ number: Int, entry: String? = nil) -> JournalRecord {
        JournalRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)), event: .entryFiltered, host: "host-a",
            pid: 7, manifest: "photos", entry: entry ?? "photo-\(number)", fields: [JournalField("n", .int(number))])
    }

    private func line(_ number: Int) -> [UInt8] { record(number).encodedLine() }

    private func write(_ bytes: [UInt8], to path: String? = nil) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path ?? self.path, contents: Data(bytes)))
    }

    private func append(_ bytes: [UInt8], to path: String? = nil) {
        let fd = open(path ?? self.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }, bytes.count)
    }

    private func numbers(_ records: [JournalRecord]) -> [Int] {
        records.compactMap { $0.int("n") }
    }

    // MARK: forEach

    func testReadsEveryRecordInOrder() throws {
        write((1...5).flatMap(line))
        XCTAssertEqual(try JournalReader(path: path).records(), (1...5).map { record($0) })
    }

    func testSkipsTornGarbageAndEmptyLines() throws {
        let torn = Array(line(2).prefix(30)) + [UInt8(ascii: "\n")]
        let foreign = Array("this is not json\n".utf8)
        let wrongShape = Array("[1,2,3]\n{\"time\":\"yesterday\",\"event\":\"entry.queued\",\"host\":\"h\",\"pid\":1}\n".utf8)
        let unknownEvent = Array("{\"time\":\"2027-01-15T08:00:00.000Z\",\"event\":\"entry.exploded\",\"host\":\"h\",\"pid\":1}\n".utf8)
        let binary: [UInt8] = [0xFF, 0x00, 0xFE, UInt8(ascii: "\n")]
        write(line(1) + torn + foreign + [UInt8(ascii: "\n")] + wrongShape + unknownEvent + binary + line(3))
        XCTAssertEqual(numbers(try JournalReader(path: path).records()), [1, 3])
    }

    func testAMissingFileHasNoRecordsAndKeepsTheOffset() throws {
        let reader = JournalReader(path: "\(folder!)/missing.jsonl")
        XCTAssertEqual(try reader.records(), [])
        XCTAssertEqual(try reader.forEach(from: 123) { _ in XCTFail("no record") }, 123)
    }

    func testForEachReturnsTheOffsetAfterTheLastCompleteLine() throws {
        let whole = line(1) + line(2)
        let torn = Array(line(3).prefix(20))
        write(whole + torn)
        let reader = JournalReader(path: path)
        var seen: [Int] = []
        let end = try reader.forEach { seen += self.numbers([$0]) }
        XCTAssertEqual(seen, [1, 2])
        XCTAssertEqual(end, whole.count, "the torn tail is left for later")

        // The writer completes the line: reading on from the offset gives just that record.
        append(Array(line(3).dropFirst(20)) + line(4))
        seen = []
        let next = try reader.forEach(from: end) { seen += self.numbers([$0]) }
        XCTAssertEqual(seen, [3, 4])
        XCTAssertEqual(next, whole.count + line(3).count + line(4).count)

        // Nothing new: nothing read, same offset.
        XCTAssertEqual(try reader.forEach(from: next) { _ in XCTFail("nothing new") }, next)
    }

    func testForEachFromAnOffsetSkipsWhatCameBefore() throws {
        write(line(1) + line(2) + line(3))
        var seen: [Int] = []
        try JournalReader(path: path).forEach(from: line(1).count) { seen += self.numbers([$0]) }
        XCTAssertEqual(seen, [2, 3])
    }

    func testAnOffsetInsideALineSkipsThatLine() throws {
        write(line(1) + line(2))
        var seen: [Int] = []
        let end = try JournalReader(path: path).forEach(from: 5) { seen += self.numbers([$0]) }
        XCTAssertEqual(seen, [2])
        XCTAssertEqual(end, line(1).count + line(2).count)
    }

    func testAnOffsetPastTheEndReadsNothing() throws {
        write(line(1))
        XCTAssertEqual(try JournalReader(path: path).forEach(from: 10_000) { _ in XCTFail("nothing") }, 10_000)
    }

    func testLinesLongerThanTheReadChunkAndManyLinesAcrossChunks() throws {
        let long = record(1, entry: String(repeating: "é", count: 100_000))  // 200 KB: several 64 KiB chunks
        var bytes = line(0) + long.encodedLine()
        for number in 2..<3_000 { bytes += line(number) }
        write(bytes)
        let records = try JournalReader(path: path).records()
        XCTAssertEqual(records.count, 3_000)
        XCTAssertEqual(records[1], long)
        XCTAssertEqual(numbers(records), Array(0..<3_000))
        XCTAssertEqual(try JournalReader(path: path).forEach { _ in }, bytes.count)
    }

    func testAnErrorFromTheBodyStopsTheReading() throws {
        struct Stop: Error {}
        write(line(1) + line(2) + line(3))
        var seen = 0
        XCTAssertThrowsError(
            try JournalReader(path: path).forEach { _ in
                seen += 1
                if seen == 2 { throw Stop() }
            }
        ) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(seen, 2)
    }

    func testAFolderIsAnError() {
        XCTAssertThrowsError(try JournalReader(path: folder).records()) { error in
            XCTAssertNotNil(error as? StorageError, "\(error)")
        }
    }

    // MARK: follow

    /// Runs `follow` with a script: `steps[i]` runs just before the reader's (i+1)-th
    /// look at the file; it stops after the last step has been looked at.
    private func follow(from offset: Int = 0, _ steps: [() -> Void]) throws -> [Int] {
        var seen: [Int] = []
        var step = 0
        try JournalReader(path: path).follow(from: offset, pollInterval: 0.001, shouldStop: {
            defer { step += 1 }
            if step < steps.count { steps[step]() }
            return step > steps.count
        }) { seen += self.numbers([$0]) }
        return seen
    }

    func testFollowStopsAtOnceWhenAsked() throws {
        write(line(1))
        var calls = 0
        try JournalReader(path: path).follow(from: 0, pollInterval: 0.001, shouldStop: { true }) { _ in calls += 1 }
        XCTAssertEqual(calls, 0)
    }

    func testFollowPicksUpAppendedLinesAndWaitsForTornOnesToBeCompleted() throws {
        write(line(1) + line(2))
        let start = line(1).count
        var observed: [[Int]] = []
        var seen: [Int] = []
        var step = 0
        let steps: [() -> Void] = [
            {},
            { self.append(self.line(3)) },
            { self.append(Array(self.line(4).prefix(10))) },
            {},
            { self.append(Array(self.line(4).dropFirst(10)) + self.line(5)) },
            {},
        ]
        try JournalReader(path: path).follow(from: start, pollInterval: 0.001, shouldStop: {
            defer { step += 1 }
            observed.append(seen)
            if step < steps.count { steps[step]() }
            return step >= steps.count
        }) { seen += self.numbers([$0]) }
        XCTAssertEqual(seen, [2, 3, 4, 5], "from the offset on, each record once")
        XCTAssertEqual(observed[3], [2, 3], "half a line is not a record")
        XCTAssertEqual(observed[4], [2, 3], "still half a line")
        XCTAssertEqual(observed[5], [2, 3, 4, 5])
    }

    func testFollowWaitsForAFileThatDoesNotExistYet() throws {
        let seen = try follow([
            {},
            {},
            { self.write(self.line(1)) },
            { self.append(self.line(2)) },
        ])
        XCTAssertEqual(seen, [1, 2])
    }

    func testFollowRestartsOnAFileRotatedAway() throws {
        write(line(1))
        let seen = try follow([
            {},
            {
                // logrotate: the file is renamed, a new one takes its name.
                XCTAssertEqual(rename(self.path, self.path + ".1"), 0)
                self.write(self.line(10) + self.line(11))
            },
            { self.append(self.line(12)) },
        ])
        XCTAssertEqual(seen, [1, 10, 11, 12])
    }

    func testFollowRestartsOnAFileReplacedByARename() throws {
        write(line(1) + line(2) + line(3))
        let seen = try follow([
            {},
            {
                // Replaced atomically by a shorter file: a new file, read from its start.
                self.write(self.line(20), to: self.path + ".new")
                XCTAssertEqual(rename(self.path + ".new", self.path), 0)
            },
            {
                // And once more, by a longer one.
                self.write(self.line(30) + self.line(31) + self.line(32) + self.line(33), to: self.path + ".new")
                XCTAssertEqual(rename(self.path + ".new", self.path), 0)
            },
        ])
        XCTAssertEqual(seen, [1, 2, 3, 20, 30, 31, 32, 33])
    }

    /// Between the reader's last look and the rotation, the daemon appended to the old
    /// file (it writes there until SIGHUP makes it reopen): those lines are still shown.
    func testFollowReadsTheRestOfTheRotatedFileBeforeTheNewOne() throws {
        write(line(1))
        let seen = try follow([
            {},
            {
                self.append(self.line(2))
                XCTAssertEqual(rename(self.path, self.path + ".1"), 0)
                self.append(self.line(3), to: self.path + ".1")
                self.write(self.line(10))
            },
            { self.append(self.line(11)) },
        ])
        XCTAssertEqual(seen, [1, 2, 3, 10, 11])
    }

    func testFollowRestartsOnAFileTruncatedInPlace() throws {
        write(line(1) + line(2))
        let seen = try follow([
            {},
            {
                // copytruncate
                XCTAssertEqual(truncate(self.path, 0), 0)
            },
            { self.append(self.line(5)) },
        ])
        XCTAssertEqual(seen, [1, 2, 5])
    }

    func testFollowKeepsReadingTheOldFileWhileThePathIsMissing() throws {
        write(line(1))
        let seen = try follow([
            {},
            { XCTAssertEqual(rename(self.path, self.path + ".1"), 0) },
            { self.append(self.line(2), to: self.path + ".1") },
            { self.write(self.line(3)) },
        ])
        XCTAssertEqual(seen, [1, 2, 3])
    }

    func testFollowSeesRecordsAppendedByAJournalWriterAcrossReopen() throws {
        let writer = try JournalWriter(path: path)
        try writer.append(record(1))
        let seen = try follow([
            {},
            { try? writer.append(self.record(2)) },
            {
                XCTAssertEqual(rename(self.path, self.path + ".1"), 0)
                try? writer.append(self.record(3))
                try? writer.reopen()
                try? writer.append(self.record(4))
            },
            { try? writer.append(self.record(5)) },
        ])
        XCTAssertEqual(seen, [1, 2, 3, 4, 5])
    }
}
