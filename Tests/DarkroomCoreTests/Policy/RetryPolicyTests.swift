@testable import DarkroomCore
import DarkroomTestSupport
import XCTest

final class RetryPolicyTests: XCTestCase {
    func testDefaults() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.retries, 3)
        XCTAssertEqual(policy.baseDelay, 0.5)
        XCTAssertEqual(policy.maxDelay, 30)
        XCTAssertEqual(policy.maxAttempts, 4)
    }

    func testDelaysStayWithinTheJitteredExponentialBounds() {
        let policy = RetryPolicy()
        var generator = SeededGenerator(seed: 42)
        for attempt in 2...20 {
            let ceiling = min(0.5 * pow(2, Double(attempt - 2)), 30)
            var seen: [Double] = []
            for _ in 0..<200 {
                let delay = policy.delay(beforeAttempt: attempt, retryAfter: nil, using: &generator)
                XCTAssertGreaterThanOrEqual(delay, ceiling / 2, "attempt \(attempt)")
                XCTAssertLessThanOrEqual(delay, ceiling, "attempt \(attempt)")
                seen.append(delay)
            }
            XCTAssertGreaterThan(Set(seen).count, 100, "jitter spreads the delays")
        }
    }

    func testSameSeedSameDelays() {
        let policy = RetryPolicy()
        var a = SeededGenerator(seed: 1)
        var b = SeededGenerator(seed: 1)
        let first = (2...6).map { policy.delay(beforeAttempt: $0, retryAfter: nil, using: &a) }
        let second = (2...6).map { policy.delay(beforeAttempt: $0, retryAfter: nil, using: &b) }
        XCTAssertEqual(first, second)
    }

    func testHugeAttemptNumbersAreCapped() {
        var generator = SeededGenerator(seed: 3)
        for attempt in [64, 1000, Int.max] {
            let delay = RetryPolicy().delay(beforeAttempt: attempt, retryAfter: nil, using: &generator)
            XCTAssertTrue((15...30).contains(delay), "\(attempt): \(delay)")
        }
        XCTAssertEqual(RetryPolicy(baseDelay: 0).delay(beforeAttempt: 9, retryAfter: nil, using: &generator), 0)
    }

    func testRetryAfterIsHonouredAndCapped() {
        var generator = SeededGenerator(seed: 9)
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: 7, using: &generator), 7)
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: 0, using: &generator), 0)
        XCTAssertEqual(policy.delay(beforeAttempt: 2, retryAfter: 3600, using: &generator), 30)
        let ignored = policy.delay(beforeAttempt: 2, retryAfter: -5, using: &generator)
        XCTAssertTrue((0.25...0.5).contains(ignored), "a negative Retry-After is ignored")
        let notANumber = policy.delay(beforeAttempt: 3, retryAfter: .nan, using: &generator)
        XCTAssertTrue((0.5...1).contains(notANumber))
    }

    func testShouldRetry() {
        let policy = RetryPolicy(retries: 2)
        let transient = DownloadFailure.httpStatus(503)
        XCTAssertTrue(policy.shouldRetry(after: transient, attempt: 1))
        XCTAssertTrue(policy.shouldRetry(after: transient, attempt: 2))
        XCTAssertFalse(policy.shouldRetry(after: transient, attempt: 3))
        XCTAssertFalse(policy.shouldRetry(after: .httpStatus(404), attempt: 1))
        XCTAssertFalse(policy.shouldRetry(after: .tooLarge(limit: 10), attempt: 1))
        XCTAssertTrue(policy.shouldRetry(after: .connection("refused"), attempt: 1))
        XCTAssertFalse(RetryPolicy(retries: 0).shouldRetry(after: transient, attempt: 1))
    }
}
