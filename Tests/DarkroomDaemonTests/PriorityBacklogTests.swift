import DarkroomCore
@testable import DarkroomDaemon
import DarkroomTestSupport
import XCTest

final class PriorityBacklogTests: XCTestCase {
    private struct Item: Equatable {
        var priority: Priority
        var serial: Int
    }

    func testAnEmptyBacklog() {
        var backlog = PriorityBacklog<Int>()
        XCTAssertTrue(backlog.isEmpty)
        XCTAssertEqual(backlog.count, 0)
        XCTAssertNil(backlog.popHighest())
        XCTAssertEqual(backlog.removeAll { _ in true }, [])
        XCTAssertEqual(backlog.count, 0)
    }

    func testHighestPriorityFirst() {
        var backlog = PriorityBacklog<String>()
        backlog.push("normal", priority: .normal)
        backlog.push("veryLow", priority: .veryLow)
        backlog.push("veryHigh", priority: .veryHigh)
        backlog.push("low", priority: .low)
        backlog.push("high", priority: .high)
        XCTAssertEqual(backlog.count, 5)
        var popped: [String] = []
        while let next = backlog.popHighest() { popped.append(next) }
        XCTAssertEqual(popped, ["veryHigh", "high", "normal", "low", "veryLow"])
        XCTAssertTrue(backlog.isEmpty)
    }

    func testFirstInFirstOutWithinAPriority() {
        var backlog = PriorityBacklog<Int>()
        for value in 0..<10 { backlog.push(value, priority: .normal) }
        XCTAssertEqual((0..<10).compactMap { _ in backlog.popHighest() }, Array(0..<10))
        XCTAssertNil(backlog.popHighest())
    }

    func testHigherPriorityQueuedLaterRunsFirst() {
        var backlog = PriorityBacklog<String>()
        backlog.push("n1", priority: .normal)
        backlog.push("n2", priority: .normal)
        XCTAssertEqual(backlog.popHighest(), "n1")
        backlog.push("h1", priority: .high)
        backlog.push("n3", priority: .normal)
        backlog.push("h2", priority: .high)
        var popped: [String] = []
        while let next = backlog.popHighest() { popped.append(next) }
        XCTAssertEqual(popped, ["h1", "h2", "n2", "n3"])
    }

    func testRemoveAllReturnsMatchesInPriorityThenArrivalOrderAndKeepsTheRest() {
        var backlog = PriorityBacklog<Item>()
        var serial = 0
        for priority in [Priority.low, .high, .normal, .high, .veryLow, .low, .veryHigh, .normal, .high] {
            backlog.push(Item(priority: priority, serial: serial), priority: priority)
            serial += 1
        }
        XCTAssertEqual(backlog.popHighest()?.serial, 6)  // consumed before the removal: not seen by it
        let removed = backlog.removeAll { $0.serial % 2 == 1 }
        XCTAssertEqual(removed.map(\.serial), [1, 3, 7, 5])  // high 1, 3; normal 7; low 5
        XCTAssertEqual(backlog.count, 9 - 1 - 4)
        var rest: [Int] = []
        while let next = backlog.popHighest() { rest.append(next.serial) }
        XCTAssertEqual(rest, [8, 2, 0, 4])  // high 8; normal 2; low 0; veryLow 4
        XCTAssertTrue(backlog.isEmpty)
    }

    func testRemoveAllThenPushKeepsWorking() {
        var backlog = PriorityBacklog<Int>()
        for value in 0..<2_000 { backlog.push(value, priority: .normal) }
        for _ in 0..<1_500 { _ = backlog.popHighest() }  // past the reclaim threshold
        XCTAssertEqual(backlog.removeAll { $0 % 3 == 0 }, (1_500..<2_000).filter { $0 % 3 == 0 })
        backlog.push(5_000, priority: .normal)
        backlog.push(6_000, priority: .high)
        let expected = [6_000] + (1_500..<2_000).filter { $0 % 3 != 0 } + [5_000]
        XCTAssertEqual(backlog.count, expected.count)
        var popped: [Int] = []
        while let next = backlog.popHighest() { popped.append(next) }
        XCTAssertEqual(popped, expected)
    }

    func testRemovingEverythingAndNothing() {
        var backlog = PriorityBacklog<Int>()
        for value in 0..<100 { backlog.push(value, priority: value % 2 == 0 ? .low : .high) }
        XCTAssertEqual(backlog.removeAll { _ in false }, [])
        XCTAssertEqual(backlog.count, 100)
        let all = backlog.removeAll { _ in true }
        XCTAssertEqual(all, (0..<100).filter { $0 % 2 == 1 } + (0..<100).filter { $0 % 2 == 0 })
        XCTAssertEqual(backlog.count, 0)
        XCTAssertTrue(backlog.isEmpty)
        XCTAssertNil(backlog.popHighest())
    }

    /// Long runs in one priority cross the storage reclaim (after more than 1,024 pops)
    /// many times; order is kept across each.
    func testOrderSurvivesStorageReclaim() {
        var backlog = PriorityBacklog<Int>()
        var next = 0
        var expected = 0
        for round in 0..<20 {
            for _ in 0..<(1_000 + round * 150) {
                backlog.push(next, priority: .normal)
                next += 1
            }
            for _ in 0..<(900 + round * 140) {
                XCTAssertEqual(backlog.popHighest(), expected)
                expected += 1
            }
        }
        while let value = backlog.popHighest() {
            XCTAssertEqual(value, expected)
            expected += 1
        }
        XCTAssertEqual(expected, next)
    }

    /// 100,000 interleaved pushes and pops, and a few removals, against a plain model:
    /// one array per priority, the highest non-empty one popped from its front.
    func testMatchesAReferenceModelOverALongRandomRun() {
        var generator = SeededGenerator(seed: 0xDA7C_2003)
        var backlog = PriorityBacklog<Int>()
        var model = ReferenceBacklog()
        let priorities = Priority.allCases
        var serial = 0
        var pops = 0
        var removals = 0

        for step in 0..<100_000 {
            if step % 20_000 == 19_999 {
                let modulus = Int(generator.next() % 5) + 2
                let removed = backlog.removeAll { $0 % modulus == 0 }
                let wanted = model.removeAll { $0 % modulus == 0 }
                guard removed == wanted else { return XCTFail("removeAll diverged from the model at step \(step)") }
                removals += 1
            } else {
                // Phases of 10,000 steps that grow then drain the backlog, so that queues
                // pass the reclaim threshold often.
                let pushPercent: UInt64 = (step / 10_000) % 2 == 0 ? 56 : 44
                if generator.next() % 100 < pushPercent {
                    // Most work at normal, the rest spread over every priority.
                    let pick = Int(generator.next() % 10)
                    let priority = pick < 5 ? Priority.normal : priorities[pick % priorities.count]
                    backlog.push(serial, priority: priority)
                    model.push(serial, priority: priority)
                    serial += 1
                } else {
                    let actual = backlog.popHighest()
                    let wanted = model.popHighest()
                    guard actual == wanted else {
                        return XCTFail("step \(step): popped \(String(describing: actual)), the model \(String(describing: wanted))")
                    }
                    pops += 1
                }
            }
            guard backlog.count == model.count, backlog.isEmpty == (model.count == 0) else {
                return XCTFail("step \(step): count \(backlog.count), the model \(model.count)")
            }
        }
        XCTAssertGreaterThan(pops, 40_000)
        XCTAssertEqual(removals, 5)
        while let wanted = model.popHighest() {
            guard backlog.popHighest() == wanted else { return XCTFail("draining diverged at \(wanted)") }
        }
        XCTAssertNil(backlog.popHighest())
        XCTAssertEqual(backlog.count, 0)
    }
}

/// The obvious implementation, for comparison: an array and a read index per priority.
private struct ReferenceBacklog {
    private var queues = Array(repeating: [Int](), count: Priority.allCases.count)
    private var heads = Array(repeating: 0, count: Priority.allCases.count)

    var count: Int { zip(queues, heads).reduce(0) { $0 + $1.0.count - $1.1 } }

    mutating func push(_ value: Int, priority: Priority) {
        queues[priority.rank].append(value)
    }

    mutating func popHighest() -> Int? {
        for level in queues.indices.reversed() where heads[level] < queues[level].count {
            heads[level] += 1
            return queues[level][heads[level] - 1]
        }
        return nil
    }

    mutating func removeAll(where predicate: (Int) -> Bool) -> [Int] {
        var removed: [Int] = []
        for level in queues.indices.reversed() {
            let waiting = queues[level][heads[level]...]
            removed += waiting.filter(predicate)
            queues[level] = waiting.filter { !predicate($0) }
            heads[level] = 0
        }
        return removed
    }
}

