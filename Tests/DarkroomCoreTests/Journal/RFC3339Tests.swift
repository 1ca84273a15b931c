@testable import DarkroomCore
import DarkroomTestSupport
import XCTest

final class RFC3339Tests: XCTestCase {
    func testFormatting() {
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 0.5)), "1970-01-01T00:00:00.500Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 1_795_243_200.123)), "2026-11-21T06:40:00.123Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: -0.001)), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 4_102_444_799.9994)), "2099-12-31T23:59:59.999Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 4_102_444_799.9996)), "2100-01-01T00:00:00.000Z")
    }

    func testExtremesAreClamped() {
        XCTAssertEqual(RFC3339.string(from: .distantFuture), "4001-01-01T00:00:00.000Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: 1e15)), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(RFC3339.string(from: Date(timeIntervalSince1970: -1e15)), "0000-01-01T00:00:00.000Z")
    }

    func testAgreesWithFoundationOnManyDates() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...7_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let ours = RFC3339.string(from: date)
            XCTAssertEqual(ours, formatter.string(from: date))
            XCTAssertEqual(RFC3339.date(from: ours), date, ours)
        }
    }

    func testParsing() throws {
        XCTAssertEqual(RFC3339.date(from: "1970-01-01T00:00:00.500Z"), Date(timeIntervalSince1970: 0.5))
        XCTAssertEqual(RFC3339.date(from: "1970-01-01T00:00:00Z"), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(RFC3339.date(from: "1970-01-01t01:00:00+01:00"), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(RFC3339.date(from: "1969-12-31 23:30:00-00:30"), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(RFC3339.date(from: "1970-01-01T00:00:00.25z"), Date(timeIntervalSince1970: 0.25))
        let nanos = try XCTUnwrap(RFC3339.date(from: "1970-01-01T00:00:01.123456789Z"))
        // Date counts from 2001, so near 1970 a Double holds ~0.1 µs, not 1 ns.
        XCTAssertEqual(nanos.timeIntervalSince1970, 1.123456789, accuracy: 1e-6)
        XCTAssertNotEqual(nanos, Date(timeIntervalSince1970: 1.123))
        XCTAssertEqual(RFC3339.date(from: "2016-12-31T23:59:60Z"), RFC3339.date(from: "2017-01-01T00:00:00Z"), "a leap second")
        XCTAssertEqual(RFC3339.date(from: "2024-02-29T12:00:00.000Z"), Date(timeIntervalSince1970: 1_709_208_000))
    }

    func testRejectsWhatIsNotRFC3339() {
        for text in ["", "1970-01-01", "1970-01-01T00:00:00", "1970-01-01T00:00:00.Z", "1970-13-01T00:00:00Z",
                     "1970-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1970-01-01T24:00:00Z", "1970-01-01T00:60:00Z",
                     "1970-01-01T00:00:61Z", "1970-01-01T00:00:00Zjunk", "1970-01-01T00:00:00+0100",
                     "70-01-01T00:00:00Z", "1970-1-01T00:00:00Z", "1970-01-01T00:00:00.123", "x970-01-01T00:00:00Z"] {
            XCTAssertNil(RFC3339.date(from: text), text)
        }
    }

    func testConcurrentUseIsSafe() async {
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<2000 {
                        let date = Date(timeIntervalSince1970: Double(task * 1_000_000 + step * 37))
                        if RFC3339.date(from: RFC3339.string(from: date)) != date { return false }
                    }
                    return true
                }
            }
            for await ok in group { XCTAssertTrue(ok) }
        }
    }
}
