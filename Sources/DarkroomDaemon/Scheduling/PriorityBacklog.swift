import DarkroomCore

/// Entries waiting to be admitted into the operation queues: one FIFO per priority.
///
/// `popHighest()` takes the oldest entry of the highest non-empty priority, which is
/// the order `OperationQueue` itself uses among ready operations (SPEC §2: higher
/// priority first, arrival order within a priority). Keeping waiting entries here
/// rather than as queued `Operation`s bounds the operations alive at once.
/// Not thread-safe: the pipeline guards it with its lock.
struct PriorityBacklog<Element> {
    private var levels: [FIFO] = Array(repeating: FIFO(), count: Priority.allCases.count)
    private(set) var count = 0

    private struct FIFO {
        var items: [Element?] = []
        var head = 0
        var isEmpty: Bool { head == items.count }

        mutating func pop() -> Element? {
            guard !isEmpty else { return nil }
            defer {
                items[head] = nil
                head += 1
                // Reclaim the consumed prefix once it dominates the storage.
                if head > 1024 && head * 2 > items.count {
                    items.removeFirst(head)
                    head = 0
                }
            }
            return items[head]
        }
    }

    var isEmpty: Bool { count == 0 }

    mutating func push(_ element: Element, priority: Priority) {
        levels[Self.level(priority)].items.append(element)
        count += 1
    }

    mutating func popHighest() -> Element? {
        for index in levels.indices.reversed() where !levels[index].isEmpty {
            count -= 1
            return levels[index].pop()
        }
        return nil
    }

    /// Removes and returns every waiting element matching `predicate`, in priority then arrival order.
    mutating func removeAll(where predicate: (Element) -> Bool) -> [Element] {
        var removed: [Element] = []
        for index in levels.indices.reversed() {
            var kept = FIFO()
            for case let item? in levels[index].items[levels[index].head...] {
                if predicate(item) { removed.append(item) } else { kept.items.append(item) }
            }
            levels[index] = kept
        }
        count -= removed.count
        return removed
    }

    private static func level(_ priority: Priority) -> Int {
        Priority.allCases.firstIndex(of: priority)!
    }
}
