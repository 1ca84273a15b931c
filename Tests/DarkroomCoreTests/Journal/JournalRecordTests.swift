@testable import DarkroomCore
import Foundation
import DarkroomTestSupport
import XCTest

final class JournalRecordTests: XCTestCase {
    private let time = Date(timeIntervalSince1970: 1_795_243_200.123)

    private func line(_ record: JournalRecord) -> String {
        String(decoding: record.encodedLine(), as: UTF8.self)
    }

    func testEncodedLayoutAndOrder() {
        let record = JournalRecord(time: time, event: .entryFiltered, host: "node-1", pid: 4242, manifest: "holiday", entry: "Bridge",
                                   fields: [JournalField("url", "http://h/b.jpg"), JournalField("width", 640), JournalField("ratio", 0.5), JournalField("ok", true)])
        XCTAssertEqual(line(record), #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.filtered","host":"node-1","pid":4242,"manifest":"holiday","entry":"Bridge","url":"http://h/b.jpg","width":640,"ratio":0.5,"ok":true}"# + "\n")
        let daemon = JournalRecord(time: time, event: .daemonStarted, host: "h", pid: 1)
        XCTAssertEqual(line(daemon), #"{"time":"2026-11-21T06:40:00.123Z","event":"daemon.started","host":"h","pid":1}"# + "\n")
    }

    func testOneLineOnlyWhateverTheContent() {
        let record = JournalRecord(time: time, event: .entryFailed, host: "h", pid: 1, manifest: "m\nx", entry: "a\r\nb\u{2028}c",
                                   fields: [JournalField("error", "line1\nline2\u{0}\u{7F}\u{85}")])
        let bytes = record.encodedLine()
        XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1)
        XCTAssertEqual(bytes.last, 0x0A)
        XCTAssertFalse(bytes.dropLast().contains { $0 < 0x20 || $0 == 0x7F })
    }

    func testEscapes() {
        let record = JournalRecord(time: time, event: .entryFailed, host: "h", pid: 1,
                                   fields: [JournalField("s", "q\"b\\n\nt\tr\rb\u{8}f\u{C}z\u{0}e\u{1B}d\u{7F}c1\u{85}ls\u{2028}é写😀/")])
        XCTAssertTrue(line(record).contains(#""s":"q\"b\\n\nt\tr\rb\bf\fz\u0000e\u001bd\u007fc1\u0085ls\u2028é写😀/""#), line(record))
    }

    func testRoundTripWithEscapesUnicodeAndNestedObjects() throws {
        let record = JournalRecord(
            time: time, event: .manifestFinished, host: "hôte-写", pid: Int32.max, manifest: "fête \"2026\"", entry: nil,
            fields: [
                JournalField("counts", .object([JournalField("filtered", 3), JournalField("failed", 1), JournalField("skipped", 0), JournalField("cancelled", 2)])),
                JournalField("text", "tab\there\nnewline \\ backslash \"quote\" \u{0}\u{1F}\u{7F}\u{9F} 😀 e\u{301}"),
                JournalField("neg", -17),
                JournalField("big", .int(Int.max)),
                JournalField("small", .int(Int.min)),
                JournalField("pi", .double(3.141592653589793)),
                JournalField("tiny", .double(.leastNonzeroMagnitude)),
                JournalField("huge", .double(1.7976931348623157e308)),
                JournalField("whole", .double(2)),
                JournalField("negzero", .double(-0.0)),
                JournalField("no", false),
                JournalField("empty", ""),
                JournalField("nested", .object([JournalField("deeper", .object([JournalField("x", "y")])), JournalField("", 1)])),
            ])
        let decoded = try XCTUnwrap(JournalRecord(line: record.encodedLine()))
        XCTAssertEqual(decoded, record)
        XCTAssertEqual(decoded[field: "whole"], .double(2), "a double stays a double")
        XCTAssertEqual(decoded[field: "counts"]?["cancelled"], .int(2))
        XCTAssertEqual(decoded.string("text"), record.string("text"))
        XCTAssertEqual(decoded.int("neg"), -17)
        XCTAssertEqual(decoded.double("pi"), 3.141592653589793)
        XCTAssertNil(decoded.int("text"))
        XCTAssertNil(decoded.string("missing"))
    }

    func testRandomDoublesRoundTrip() throws {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<500 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let record = JournalRecord(time: time, event: .entryDownloaded, host: "h", pid: 2, fields: [JournalField("v", .double(value))])
            XCTAssertEqual(try XCTUnwrap(JournalRecord(line: record.encodedLine()))[field: "v"], .double(value))
        }
    }

    func testNonFiniteDoublesAreWrittenAsNull() throws {
        let record = JournalRecord(time: time, event: .entryDownloaded, host: "h", pid: 2,
                                   fields: [JournalField("a", .double(.nan)), JournalField("b", .double(.infinity)), JournalField("c", 1)])
        XCTAssertTrue(line(record).hasSuffix(#""a":null,"b":null,"c":1}"# + "\n"))
        let decoded = try XCTUnwrap(JournalRecord(line: record.encodedLine()))
        XCTAssertEqual(decoded.fields, [JournalField("c", 1)])
    }

    func testReservedAndRepeatedKeysAreNotWritten() throws {
        let record = JournalRecord(time: time, event: .entryQueued, host: "h", pid: 2, manifest: "m", entry: "e",
                                   fields: [JournalField("event", "forged"), JournalField("url", "a"), JournalField("url", "b"), JournalField("pid", 9)])
        XCTAssertTrue(line(record).hasSuffix(#""entry":"e","url":"a"}"# + "\n"), line(record))
        let decoded = try XCTUnwrap(JournalRecord(line: record.encodedLine()))
        XCTAssertEqual(decoded.event, .entryQueued)
        XCTAssertEqual(decoded.fields, [JournalField("url", "a")])
    }

    func testDecodingWithoutTrailingNewlineAndFromOtherCollections() throws {
        let record = JournalRecord(time: time, event: .entryQueued, host: "h", pid: 2, manifest: "m", entry: "e", fields: [JournalField("priority", "high")])
        let bytes = record.encodedLine()
        XCTAssertEqual(JournalRecord(line: bytes.dropLast()), record)
        XCTAssertEqual(JournalRecord(line: Data(bytes)), record)
        XCTAssertEqual(JournalRecord(line: ArraySlice(bytes)), record)
        XCTAssertEqual(JournalRecord(line: Array(String(decoding: bytes, as: UTF8.self).utf8)), record)
        XCTAssertEqual(JournalRecord(line: bytes.dropLast() + Array("\r\n".utf8)), record)
    }

    func testEveryPrefixOfALineIsNilOrTheRecord() {
        let record = JournalRecord(time: time, event: .manifestFinished, host: "h€", pid: 77, manifest: "m", entry: "😀",
                                   fields: [JournalField("counts", .object([JournalField("filtered", 1), JournalField("failed", 22)])), JournalField("x", 1.25), JournalField("s", "a\"\\\u{1}")])
        let bytes = record.encodedLine()
        for length in 0..<(bytes.count - 1) {
            XCTAssertNil(JournalRecord(line: bytes.prefix(length)), "prefix \(length)")
        }
        XCTAssertEqual(JournalRecord(line: bytes.prefix(bytes.count - 1)), record)
        XCTAssertEqual(JournalRecord(line: bytes), record)
    }

    func testEveryTailOfALineIsNil() {
        // What a reader sees if it starts in the middle of a line.
        let bytes = JournalRecord(time: time, event: .entryQueued, host: "h", pid: 1, manifest: "m", entry: "e").encodedLine()
        for start in 1..<bytes.count {
            XCTAssertNil(JournalRecord(line: bytes[start...]), "tail from \(start)")
        }
    }

    func testForeignAndBrokenLines() {
        let good = #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1}"#
        XCTAssertNotNil(JournalRecord(line: Array(good.utf8)))
        let bad = [
            "", "\n", "   ", "null", "[]", "42", "\"text\"", "{}",
            #"{"event":"entry.queued","host":"h","pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","host":"h","pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h"}"#,
            #"{"time":"yesterday","event":"entry.queued","host":"h","pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.exploded","host":"h","pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":99999999999}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1.5}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":7,"pid":1}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,"manifest":3}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1} {}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":01}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,"x":"raw"# + "\t" + #"tab"}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,"x":"\q"}"#,
            #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,"x":tru}"#,
            #"{'time':'2026-11-21T06:40:00.123Z'}"#,
        ]
        for text in bad {
            XCTAssertNil(JournalRecord(line: Array(text.utf8)), text)
        }
    }

    func testForeignExtrasAreTolerated() throws {
        let text = #"  {"time":"2026-11-21T06:40:00Z","event":"entry.failed","host":"h","pid":-3,"manifest":"m","entry":null,"list":[1,[2,{"a":null}]],"n":null,"u":"\u00e9\ud83d\ude00\ud800x","s":"a\/b","e":1E3}  "#
        let record = try XCTUnwrap(JournalRecord(line: Array(text.utf8)))
        XCTAssertEqual(record.pid, -3)
        XCTAssertNil(record.entry)
        XCTAssertEqual(record.fields, [JournalField("u", "é😀\u{FFFD}x"), JournalField("s", "a/b"), JournalField("e", .double(1000))])
    }

    func testHostileNestingIsRefusedWithoutCrashing() {
        let prefix = #"{"time":"2026-11-21T06:40:00.123Z","event":"entry.queued","host":"h","pid":1,"x":"#
        let deepArrays = prefix + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        XCTAssertNil(JournalRecord(line: Array(deepArrays.utf8)))
        let deepObjects = prefix + String(repeating: #"{"a":"#, count: 50_000) + "1" + String(repeating: "}", count: 50_001)
        XCTAssertNil(JournalRecord(line: Array(deepObjects.utf8)))
        let fine = prefix + String(repeating: #"{"a":"#, count: 10) + "1" + String(repeating: "}", count: 11)
        XCTAssertNotNil(JournalRecord(line: Array(fine.utf8)))
    }

    func testRandomCorruptionNeverCrashes() {
        var generator = SeededGenerator(seed: 99)
        let bytes = JournalRecord(time: time, event: .manifestFinished, host: "h", pid: 1, manifest: "m",
                                  fields: [JournalField("counts", .object([JournalField("filtered", 1)])), JournalField("s", "é\"\\")]).encodedLine()
        for _ in 0..<3000 {
            var corrupted = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                corrupted[Int.random(in: 0..<corrupted.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = JournalRecord(line: corrupted)
        }
    }

    func testEventProperties() {
        XCTAssertEqual(JournalEvent.allCases.count, 18)
        for event in JournalEvent.allCases {
            XCTAssertEqual(event.isDurablePoint, event.rawValue.hasPrefix("daemon.") || event.rawValue.hasPrefix("manifest."), event.rawValue)
            XCTAssertEqual(event.isEntryEvent, event.rawValue.hasPrefix("entry."))
        }
        XCTAssertEqual(JournalEvent.entryRetrying.rawValue, "entry.retrying")
        XCTAssertEqual(JournalEvent(rawValue: "manifest.claimed"), .manifestClaimed)
    }

    func testLiteralsAndAccessors() {
        let values: [JournalValue] = ["s", 1, 2.5, true]
        XCTAssertEqual(values, [.string("s"), .int(1), .double(2.5), .bool(true)])
        XCTAssertEqual(JournalValue.int(3).doubleValue, 3)
        XCTAssertNil(JournalValue.string("3").intValue)
        XCTAssertEqual(JournalValue.bool(true).boolValue, true)
        XCTAssertNil(JournalValue.int(1)["x"])
        XCTAssertEqual(ResultCounts(filtered: 1, failed: 2, skipped: 3, cancelled: 4).journalValue["skipped"], 3)
    }
}
