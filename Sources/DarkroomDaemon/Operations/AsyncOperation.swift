import Foundation

/// An `Operation` that finishes when it says so, not when `start()` returns.
///
/// swift-corelibs-foundation has no KVO: the queue learns that an operation finished
/// from `didChangeValue(forKey: "isFinished")`, which must come *after* the flag
/// changed, or the queue never frees the slot. `start()` on an operation cancelled
/// before it ran finishes at once, as the queue expects.
///
/// Subclasses override `execute()` and call `finish()` exactly once (later calls are
/// ignored). State is behind a lock; subclasses are `final` and `@unchecked Sendable`.
///
/// Make dependencies with `dependent.depend(on: self)`, not `addDependency` alone: see
/// `depend(on:)` for the corelibs-foundation bug it works around.
class AsyncOperation: Operation, @unchecked Sendable {
    private let stateLock = NSLock()
    private var executing = false
    private var finished = false
    /// Operations that depend on this one, kept alive until this one has finished.
    private var dependents: [Operation] = []

    /// `addDependency(operation)`, and `operation` keeps this one alive until it finishes.
    ///
    /// swift-corelibs-foundation records an operation's dependents as *unretained*
    /// pointers and walks them when it finishes. A cancelled dependent becomes ready at
    /// once, may finish and be freed first, and the dependency's finish then reads freed
    /// memory (a crash seen on SIGTERM with thousands of queued entries).
    final func depend(on operation: AsyncOperation) {
        addDependency(operation)
        operation.stateLock.withLock {
            if !operation.finished { operation.dependents.append(self) }
        }
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { stateLock.withLock { executing } }
    override var isFinished: Bool { stateLock.withLock { finished } }

    override func start() {
        if isCancelled {
            cancelledBeforeStart()
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        stateLock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    /// The work. Runs on the queue's thread; may return before the work is done.
    func execute() {
        finish()
    }

    /// Called instead of `execute()` when the operation was cancelled before it started.
    func cancelledBeforeStart() {}

    /// Marks the operation finished; the queue then starts dependents.
    final func finish() {
        let wasExecuting: Bool? = stateLock.withLock {
            if finished { return nil }
            let was = executing
            return was
        }
        guard let wasExecuting else { return }
        willChangeValue(forKey: "isFinished")
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        stateLock.withLock {
            executing = false
            finished = true
        }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
        // The queue has now walked the dependents; they may go.
        let released = stateLock.withLock {
            defer { dependents = [] }
            return dependents
        }
        _ = released
    }
}
