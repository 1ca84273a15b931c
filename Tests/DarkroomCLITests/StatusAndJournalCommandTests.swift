import DarkroomCore
import DarkroomStorage
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `darkroom status` and `darkroom journal` on a journal written by hand (SPEC §1, §4).
final class StatusAndJournalCommandTests: XCTestCase {
    private var scratch: Scratch!
    private var outbox: String!
    private var journalPath: String { "\(outbox!)/journal.jsonl" }

    override func setUpWithError() throws {
        scratch = try Scratch()
        outbox = try scratch.folder("outbox")
    }

    override func tearDown() {
        scratch = nil
    }

    // MARK: The journal

    /// 2026-11-21T06:40:00Z, and one record every 125 ms after it.
    private static let start = Date(timeIntervalSince1970: 1_795_243_200)
    private static func time(_ index: Int) -> Date { start.addingTimeInterval(Double(index) * 0.125) }
    /// The same time, spelled without the code under test.
    private static func stamp(_ index: Int) -> String {
        let ms = index * 125
        return String(format: "2026-11-21T06:40:%02d.%03dZ", ms / 1000, ms % 1000)
    }

    private static let settings = JournalValue.string("intensity=0.8 format=source quality=90")
    private static let quotedSettings = "settings=\"intensity=0.8 format=source quality=90\""

    /// Appends raw bytes, as a crash in the middle of a write leaves them.
    private func appendRaw(_ text: String, to path: String? = nil) throws {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path ?? journalPath))
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        try handle.close()
    }

    /// A finished manifest (filtered, skipped and failed entries), a crash (torn line,
    /// repaired by the next writer), a second daemon's in-progress manifest (queued,
    /// downloading, retrying), a rejected manifest, and a torn last line.
    private func writeJournal() throws {
        func r(_ i: Int, _ event: JournalEvent, _ manifest: String? = nil, _ entry: String? = nil, _ fields: [JournalField] = []) -> JournalRecord {
            JournalRecord(
                time: Self.time(i), event: event, host: i < 13 ? "alpha" : "beta", pid: i < 13 ? 101 : 202,
                manifest: manifest, entry: entry, fields: fields)
        }
        let started: [JournalField] = [JournalField("inbox", "/srv/darkroom/inbox"), JournalField("version", "1.0")]
        do {
            let writer = try JournalWriter(path: journalPath)
            for record in [
                r(0, .daemonStarted, nil, nil, started),
                r(1, .manifestClaimed, "holiday", nil, [JournalField("priority", "normal"), JournalField("entries", 4), JournalField("resumed", false)]),
                r(2, .entryFailed, "holiday", "Flower", [
                    JournalField("url", "NO URL"), JournalField("error", "invalid-url: the entry says \"NO URL\" instead of a URL"),
                ]),
                r(3, .entrySkipped, "holiday", "Lake", [
                    JournalField("url", "https://example.com/lake.jpg"), JournalField("settings", Self.settings), JournalField("output", "Lake.jpg"),
                ]),
                r(4, .entryQueued, "holiday", "Clouds", [
                    JournalField("url", "http://example.com/clouds.jpg"), JournalField("priority", "normal"), JournalField("settings", Self.settings),
                ]),
                r(5, .entryQueued, "holiday", "Old Mill", [
                    JournalField("url", "http://example.com/mill.jpg"), JournalField("priority", "normal"), JournalField("settings", Self.settings),
                ]),
                r(6, .entryDownloading, "holiday", "Clouds", [JournalField("url", "http://example.com/clouds.jpg"), JournalField("attempt", 1)]),
                r(7, .entryDownloaded, "holiday", "Clouds", [JournalField("bytes", 48213), JournalField("ms", 35)]),
                r(8, .entryFiltering, "holiday", "Clouds"),
                r(9, .entryFiltered, "holiday", "Clouds", [
                    JournalField("url", "http://example.com/clouds.jpg"), JournalField("settings", Self.settings),
                    JournalField("output", "Clouds.jpg"), JournalField("width", 640), JournalField("height", 480), JournalField("ms", 12),
                ]),
                r(10, .entryDownloading, "holiday", "Old Mill", [JournalField("url", "http://example.com/mill.jpg"), JournalField("attempt", 1)]),
                r(11, .entryFailed, "holiday", "Old Mill", [
                    JournalField("url", "http://example.com/mill.jpg"), JournalField("error", "http-410: server answered 410 Gone"),
                ]),
                r(12, .manifestFinished, "holiday", nil, [
                    JournalField("counts", .object([
                        JournalField("filtered", 1), JournalField("failed", 2), JournalField("skipped", 1), JournalField("cancelled", 0),
                    ])),
                ]),
            ] {
                try writer.append(record)
            }
        }
        try appendRaw("{\"time\":\"2026-11-21T06:40:01.600Z\",\"event\":\"entry.down")
        do {
            let writer = try JournalWriter(path: journalPath)  // repairs the torn tail
            var records = [
                r(13, .daemonStarted, nil, nil, started),
                r(14, .manifestClaimed, "busy", nil, [JournalField("priority", "high"), JournalField("entries", 3), JournalField("resumed", false)]),
            ]
            for (i, photo) in ["p1", "p2", "p3"].enumerated() {
                records.append(r(15 + i, .entryQueued, "busy", photo, [
                    JournalField("url", .string("http://example.com/\(photo).jpg")), JournalField("priority", "high"),
                    JournalField("settings", Self.settings),
                ]))
            }
            records += [
                r(18, .entryDownloading, "busy", "p1", [JournalField("url", "http://example.com/p1.jpg"), JournalField("attempt", 1)]),
                r(19, .entryRetrying, "busy", "p2", [
                    JournalField("attempt", 2), JournalField("error", "timeout: no byte received for 30 seconds"), JournalField("delay_ms", 500),
                ]),
                r(20, .manifestRejected, "broken", nil, [JournalField("error", "not a property list: Unexpected character h at line 1")]),
            ]
            for record in records { try writer.append(record) }
        }
        try appendRaw("{\"time\":\"2026-11-21T06:40:03.000Z\",\"event\":\"entry.filt")
    }

    /// What `darkroom journal` prints for ``writeJournal()``, written out by hand.
    private static let expectedLines: [String] = {
        let a = "alpha[101]", b = "beta[202]"
        return [
            "\(stamp(0)) \(a) daemon.started inbox=/srv/darkroom/inbox version=1.0",
            "\(stamp(1)) \(a) manifest.claimed holiday priority=normal entries=4 resumed=false",
            "\(stamp(2)) \(a) entry.failed holiday/Flower url=\"NO URL\" error=\"invalid-url: the entry says \\\"NO URL\\\" instead of a URL\"",
            "\(stamp(3)) \(a) entry.skipped holiday/Lake url=https://example.com/lake.jpg \(quotedSettings) output=Lake.jpg",
            "\(stamp(4)) \(a) entry.queued holiday/Clouds url=http://example.com/clouds.jpg priority=normal \(quotedSettings)",
            "\(stamp(5)) \(a) entry.queued holiday/Old Mill url=http://example.com/mill.jpg priority=normal \(quotedSettings)",
            "\(stamp(6)) \(a) entry.downloading holiday/Clouds url=http://example.com/clouds.jpg attempt=1",
            "\(stamp(7)) \(a) entry.downloaded holiday/Clouds bytes=48213 ms=35",
            "\(stamp(8)) \(a) entry.filtering holiday/Clouds",
            "\(stamp(9)) \(a) entry.filtered holiday/Clouds url=http://example.com/clouds.jpg \(quotedSettings) output=Clouds.jpg width=640 height=480 ms=12",
            "\(stamp(10)) \(a) entry.downloading holiday/Old Mill url=http://example.com/mill.jpg attempt=1",
            "\(stamp(11)) \(a) entry.failed holiday/Old Mill url=http://example.com/mill.jpg error=\"http-410: server answered 410 Gone\"",
            "\(stamp(12)) \(a) manifest.finished holiday counts={filtered=1 failed=2 skipped=1 cancelled=0}",
            "\(stamp(13)) \(b) daemon.started inbox=/srv/darkroom/inbox version=1.0",
            "\(stamp(14)) \(b) manifest.claimed busy priority=high entries=3 resumed=false",
            "\(stamp(15)) \(b) entry.queued busy/p1 url=http://example.com/p1.jpg priority=high \(quotedSettings)",
            "\(stamp(16)) \(b) entry.queued busy/p2 url=http://example.com/p2.jpg priority=high \(quotedSettings)",
            "\(stamp(17)) \(b) entry.queued busy/p3 url=http://example.com/p3.jpg priority=high \(quotedSettings)",
            "\(stamp(18)) \(b) entry.downloading busy/p1 url=http://example.com/p1.jpg attempt=1",
            "\(stamp(19)) \(b) entry.retrying busy/p2 attempt=2 error=\"timeout: no byte received for 30 seconds\" delay_ms=500",
            "\(stamp(20)) \(b) manifest.rejected broken error=\"not a property list: Unexpected character h at line 1\"",
        ]
    }()

    // MARK: status

    /// One row of the status table: name, state, then the six counts as printed.
    private struct Row: Equatable {
        var name: String
        var state: String
        var counts: [String]
    }

    private func rows(_ lines: [String]) -> [Row] {
        lines.map { line in
            let words = line.split(separator: " ").map(String.init)
            return Row(name: words[0], state: words.dropFirst().dropLast(6).joined(separator: " "), counts: Array(words.suffix(6)))
        }
    }

    func testStatusShowsEveryManifestWithItsCounts() throws {
        try writeJournal()
        let result = try Darkroom.run(["status", "--outbox", outbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.lines
        XCTAssertEqual(lines.count, 5, result.stdout)
        guard lines.count == 5 else { return }
        XCTAssertEqual(
            lines[0].split(separator: " ").map(String.init),
            ["MANIFEST", "STATE", "QUEUED", "RUNNING", "FILTERED", "SKIPPED", "FAILED", "CANCELLED"])
        XCTAssertEqual(rows(Array(lines[1...3])), [
            Row(name: "busy", state: "in progress", counts: ["1", "2", "0", "0", "0", "0"]),
            Row(name: "holiday", state: "finished", counts: ["0", "0", "1", "1", "2", "0"]),
            Row(name: "broken", state: "rejected", counts: ["-", "-", "-", "-", "-", "-"]),
        ], result.stdout)
        XCTAssertEqual(Set(lines[0...3].map(\.count)).count, 1, "the table's columns line up:\n\(result.stdout)")
        XCTAssertEqual(lines[4], "broken: rejected: not a property list: Unexpected character h at line 1")
    }

    func testStatusReadsAJournalGivenByPath() throws {
        try writeJournal()
        let elsewhere = scratch.path("moved.jsonl")
        try FileManager.default.moveItem(atPath: journalPath, toPath: elsewhere)
        let result = try Darkroom.run(["status", "--outbox", outbox, "--journal", elsewhere])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(rows(Array(result.lines.dropFirst().prefix(3))).map(\.name), ["busy", "holiday", "broken"], result.stdout)
    }

    /// Re-submitting a manifest starts over: the table describes the latest submission,
    /// not entries it no longer has, and not a rejection it replaced (or that replaced it).
    func testStatusDescribesTheLatestSubmissionOfEachManifest() throws {
        let writer = try JournalWriter(path: journalPath)
        var i = 0
        func add(_ event: JournalEvent, _ manifest: String, _ entry: String? = nil, _ fields: [JournalField] = []) throws {
            i += 1
            try writer.append(JournalRecord(time: Self.time(i), event: event, host: "alpha", pid: 7, manifest: manifest, entry: entry, fields: fields))
        }
        func done(_ entry: String) -> [JournalField] {
            [JournalField("url", .string("http://example.com/\(entry).jpg")), JournalField("settings", Self.settings), JournalField("output", .string("\(entry).jpg"))]
        }
        // "again": two entries, then re-submitted with only one of them, which is skipped.
        try add(.manifestClaimed, "again")
        for entry in ["x", "y"] { try add(.entryQueued, "again", entry) }
        for entry in ["x", "y"] { try add(.entryFiltered, "again", entry, done(entry)) }
        try add(.manifestFinished, "again")
        try add(.manifestClaimed, "again")
        try add(.entrySkipped, "again", "x", done("x"))
        try add(.manifestFinished, "again")
        // "fixed": rejected, then submitted again in good shape and finished.
        try add(.manifestRejected, "fixed", nil, [JournalField("error", "the root is an array; a manifest is a dictionary")])
        try add(.manifestClaimed, "fixed")
        try add(.entryFiltered, "fixed", "z", done("z"))
        try add(.manifestFinished, "fixed")
        // "spoiled": finished, then a new version that cannot be read.
        try add(.manifestClaimed, "spoiled")
        try add(.entryFiltered, "spoiled", "w", done("w"))
        try add(.manifestFinished, "spoiled")
        try add(.manifestRejected, "spoiled", nil, [JournalField("error", "not a property list: the file is empty")])

        let result = try Darkroom.run(["status", "--outbox", outbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        let table = rows(Array(result.lines.dropFirst().filter { !$0.contains(": rejected: ") }))
        XCTAssertEqual(table, [
            Row(name: "again", state: "finished", counts: ["0", "0", "0", "1", "0", "0"]),
            Row(name: "fixed", state: "finished", counts: ["0", "0", "1", "0", "0", "0"]),
            Row(name: "spoiled", state: "rejected", counts: ["-", "-", "-", "-", "-", "-"]),
        ], result.stdout)
        XCTAssertEqual(result.lines.filter { $0.contains(": rejected: ") }, ["spoiled: rejected: not a property list: the file is empty"])
    }

    // MARK: journal

    func testJournalPrintsEveryRecordAsOneReadableLine() throws {
        try writeJournal()
        let result = try Darkroom.run(["journal", "--outbox", outbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.lines.count, Self.expectedLines.count, result.stdout)
        for (printed, expected) in zip(result.lines, Self.expectedLines) {
            XCTAssertEqual(printed, expected)
        }
        XCTAssertFalse(result.stdout.contains("entry.down\n"), "torn lines are skipped")
    }

    func testJournalShowsOneManifest() throws {
        try writeJournal()
        let holiday = try Darkroom.run(["journal", "--outbox", outbox, "--manifest", "holiday"])
        XCTAssertEqual(holiday.status, 0, holiday.stderr)
        XCTAssertEqual(holiday.lines, Array(Self.expectedLines[1...12]))

        let busy = try Darkroom.run(["journal", "--outbox", outbox, "--manifest", "busy"])
        XCTAssertEqual(busy.lines, Array(Self.expectedLines[14...19]))

        let none = try Darkroom.run(["journal", "--outbox", outbox, "--manifest", "nothing-by-this-name"])
        XCTAssertEqual(none.status, 0)
        XCTAssertEqual(none.stdout, "")
    }

    func testJournalLastLines() throws {
        try writeJournal()
        let last = try Darkroom.run(["journal", "--outbox", outbox, "--lines", "2"])
        XCTAssertEqual(last.status, 0, last.stderr)
        XCTAssertEqual(last.lines, Array(Self.expectedLines.suffix(2)))

        let short = try Darkroom.run(["journal", "--outbox", outbox, "-n", "3", "--manifest", "holiday"])
        XCTAssertEqual(short.lines, Array(Self.expectedLines[10...12]))

        let more = try Darkroom.run(["journal", "--outbox", outbox, "--lines", "1000"])
        XCTAssertEqual(more.lines, Self.expectedLines)

        let zero = try Darkroom.run(["journal", "--outbox", outbox, "--lines", "0"])
        XCTAssertEqual(zero.status, 0)
        XCTAssertEqual(zero.stdout, "")

        let negative = try Darkroom.run(["journal", "--outbox", outbox, "--lines", "-1"])
        XCTAssertEqual(negative.status, 2, negative.stderr)
        XCTAssertEqual(negative.errorLines.count, 1, negative.stderr)
    }

    /// Photo names and error sentences come from outside (a manifest, a server): a line
    /// break in one must not make a second, forged line.
    func testJournalKeepsEachRecordOnOneLine() throws {
        let writer = try JournalWriter(path: journalPath)
        try writer.append(JournalRecord(
            time: Self.time(0), event: .entryFailed, host: "alpha", pid: 1, manifest: "m", entry: "two\nlines",
            fields: [JournalField("error", "decode: bad\n2026-01-01T00:00:00.000Z evil[1] daemon.stopped"), JournalField("path", "C:\\x \"y\"")]))
        try writer.append(JournalRecord(time: Self.time(1), event: .daemonStopped, host: "alpha", pid: 1))
        let result = try Darkroom.run(["journal", "--outbox", outbox])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines, [
            "\(Self.stamp(0)) alpha[1] entry.failed m/two\\nlines error=\"decode: bad\\n2026-01-01T00:00:00.000Z evil[1] daemon.stopped\" path=\"C:\\\\x \\\"y\\\"\"",
            "\(Self.stamp(1)) alpha[1] daemon.stopped",
        ])
    }

    func testJournalFollowPrintsLinesAppendedLater() throws {
        try writeJournal()
        let follower = try Darkroom.start(["journal", "--outbox", outbox, "--follow", "--lines", "1"])
        defer { follower.terminate() }
        XCTAssertTrue(follower.waitForOutput { $0 == Self.expectedLines.last! + "\n" }, "printed: \(follower.stdout) \(follower.stderr)")

        // Appended by a daemon starting now: its writer first ends the torn line.
        let writer = try JournalWriter(path: journalPath)
        let later = JournalRecord(
            time: Self.time(24), event: .entryFiltered, host: "gamma", pid: 303, manifest: "busy", entry: "p1",
            fields: [JournalField("output", "p1.jpg")])
        try writer.append(later)
        let laterLine = "\(Self.stamp(24)) gamma[303] entry.filtered busy/p1 output=p1.jpg"
        XCTAssertTrue(follower.waitForOutput { $0.hasSuffix(laterLine + "\n") }, follower.stdout)

        // Log rotation: the file is moved away and a new one started at the same path.
        try FileManager.default.moveItem(atPath: journalPath, toPath: journalPath + ".1")
        let rotated = try JournalWriter(path: journalPath)
        try rotated.append(JournalRecord(time: Self.time(32), event: .daemonStopped, host: "gamma", pid: 303))
        let rotatedLine = "\(Self.stamp(32)) gamma[303] daemon.stopped"
        XCTAssertTrue(follower.waitForOutput { $0.hasSuffix(rotatedLine + "\n") }, follower.stdout)

        XCTAssertTrue(follower.process.isRunning, "--follow keeps going")
        XCTAssertEqual(follower.stdout, [Self.expectedLines.last!, laterLine, rotatedLine].map { $0 + "\n" }.joined())
    }

    func testJournalFollowOnlyShowsTheChosenManifest() throws {
        try writeJournal()
        let follower = try Darkroom.start(["journal", "--outbox", outbox, "--follow", "--manifest", "busy"])
        defer { follower.terminate() }
        XCTAssertTrue(follower.waitForOutput { $0.hasSuffix(Self.expectedLines[19] + "\n") }, follower.stdout)
        let writer = try JournalWriter(path: journalPath)
        try writer.append(JournalRecord(time: Self.time(40), event: .manifestClaimed, host: "gamma", pid: 9, manifest: "other"))
        try writer.append(JournalRecord(time: Self.time(41), event: .manifestCancelled, host: "gamma", pid: 9, manifest: "busy"))
        let line = "\(Self.stamp(41)) gamma[9] manifest.cancelled busy"
        XCTAssertTrue(follower.waitForOutput { $0.hasSuffix(line + "\n") }, follower.stdout)
        XCTAssertFalse(follower.stdout.contains("other"), follower.stdout)
        XCTAssertEqual(follower.stdout, (Array(Self.expectedLines[14...19]) + [line]).map { $0 + "\n" }.joined())
    }
}
