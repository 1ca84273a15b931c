import DarkroomSystem
import Dispatch
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Signals are sent to this very process. A signal is sent only while a watcher of it
/// is live: after the last `cancel()` its default action (for SIGUSR1/SIGUSR2:
/// terminate) is back, and sending it would end the test run.
final class SignalWatcherTests: XCTestCase {
    private let queue = DispatchQueue(label: "signal-watcher-tests")
    private static let queueKey = DispatchSpecificKey<Bool>()

    override func setUp() {
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// The signals a watcher delivered, and whether each came on the queue.
    private final class Deliveries: @unchecked Sendable {
        private let lock = NSLock()
        private var signals: [Int32] = []
        private var offQueue = 0
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ number: Int32) {
            let onQueue = DispatchQueue.getSpecific(key: SignalWatcherTests.queueKey) == true
            lock.withLock {
                signals.append(number)
                if !onQueue { offQueue += 1 }
            }
            arrived.signal()
        }

        var all: [Int32] { lock.withLock { signals } }
        var callsOffQueue: Int { lock.withLock { offQueue } }

        /// Waits until `number` has been delivered `count` times in all (or 5 s).
        func wait(for number: Int32, count: Int = 1) -> Bool {
            let deadline = DispatchTime.now() + 5
            while lock.withLock({ signals.filter { $0 == number }.count }) < count {
                if arrived.wait(timeout: deadline) == .timedOut { return false }
            }
            return true
        }
    }

    private func disposition(_ number: Int32) -> Int {
        var action = sigaction()
        XCTAssertEqual(sigaction(number, nil, &action), 0)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

    private func isDefault(_ number: Int32) -> Bool { disposition(number) == 0 }

    private func watch(_ signals: [Int32]) -> (SignalWatcher, Deliveries) {
        let deliveries = Deliveries()
        let watcher = SignalWatcher(signals: signals, queue: queue) { deliveries.add($0) }
        return (watcher, deliveries)
    }

    /// Cancels on the queue, as the daemon does.
    private func cancel(_ watcher: SignalWatcher) {
        queue.sync { watcher.cancel() }
    }

    func testTheHandlerRunsOnTheQueueWithTheSignalNumber() {
        let (watcher, deliveries) = watch([SIGUSR2])
        XCTAssertFalse(isDefault(SIGUSR2), "while watched, the default action (terminate) is off")
        XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
        XCTAssertTrue(deliveries.wait(for: SIGUSR2))
        queue.sync {}
        XCTAssertEqual(deliveries.all, [SIGUSR2])
        XCTAssertEqual(deliveries.callsOffQueue, 0)
        cancel(watcher)
    }

    func testCancelRestoresTheDefaultAction() {
        let (watcher, deliveries) = watch([SIGUSR1, SIGUSR2])
        XCTAssertFalse(isDefault(SIGUSR1))
        XCTAssertFalse(isDefault(SIGUSR2))
        XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
        XCTAssertTrue(deliveries.wait(for: SIGUSR2))
        cancel(watcher)
        XCTAssertTrue(isDefault(SIGUSR1))
        XCTAssertTrue(isDefault(SIGUSR2))
        cancel(watcher)  // a second cancel changes nothing
        XCTAssertTrue(isDefault(SIGUSR2))
    }

    func testSeveralSignalsAreToldApart() {
        let (watcher, deliveries) = watch([SIGUSR1, SIGUSR2])
        XCTAssertEqual(kill(getpid(), SIGUSR1), 0)
        XCTAssertTrue(deliveries.wait(for: SIGUSR1))
        XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
        XCTAssertTrue(deliveries.wait(for: SIGUSR2))
        queue.sync {}
        XCTAssertEqual(deliveries.all, [SIGUSR1, SIGUSR2])
        cancel(watcher)
    }

    func testRepeatedSignalsAreEachDeliveredWhenSpacedOut() {
        let (watcher, deliveries) = watch([SIGUSR2])
        for round in 1...5 {
            XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
            XCTAssertTrue(deliveries.wait(for: SIGUSR2, count: round), "round \(round)")
        }
        cancel(watcher)
    }

    /// A signal sent from another thread (as another process would, landing on any
    /// thread that does not block it) is delivered too.
    func testASignalSentFromAnotherThreadIsDelivered() {
        let (watcher, deliveries) = watch([SIGUSR2])
        let sent = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            kill(getpid(), SIGUSR2)
            sent.signal()
        }
        sent.wait()
        XCTAssertTrue(deliveries.wait(for: SIGUSR2))
        cancel(watcher)
    }

    /// A process may watch, stop watching and watch again (a test process starts and
    /// stops many daemons): the new watcher still gets its signals.
    func testAWatcherCreatedAfterAnotherWasCancelledStillReceivesSignals() {
        for round in 1...3 {
            let (watcher, deliveries) = watch([SIGUSR2])
            XCTAssertFalse(isDefault(SIGUSR2), "round \(round)")
            XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
            XCTAssertTrue(deliveries.wait(for: SIGUSR2), "round \(round): the signal was lost")
            cancel(watcher)
            XCTAssertTrue(isDefault(SIGUSR2), "round \(round)")
        }
    }

    /// Two live watchers of one signal both see it, and cancelling one leaves the
    /// other working (the default action must not come back while one still watches).
    func testTwoLiveWatchersOfOneSignal() {
        let (first, firstDeliveries) = watch([SIGUSR2])
        let (second, secondDeliveries) = watch([SIGUSR2])
        XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
        XCTAssertTrue(firstDeliveries.wait(for: SIGUSR2))
        XCTAssertTrue(secondDeliveries.wait(for: SIGUSR2))

        cancel(first)
        XCTAssertFalse(isDefault(SIGUSR2), "the second watcher still watches: terminating is still off")
        guard !isDefault(SIGUSR2) else {
            // Sending now would end the test process.
            cancel(second)
            return
        }
        XCTAssertEqual(kill(getpid(), SIGUSR2), 0)
        XCTAssertTrue(secondDeliveries.wait(for: SIGUSR2, count: 2))
        queue.sync {}
        XCTAssertEqual(firstDeliveries.all, [SIGUSR2], "the cancelled watcher saw nothing more")
        cancel(second)
        XCTAssertTrue(isDefault(SIGUSR2))
    }
}
