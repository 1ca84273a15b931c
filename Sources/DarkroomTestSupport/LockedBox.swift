import Foundation

/// A value behind an `NSLock`, so that a `Sendable` class can hold mutable state that
/// test threads and event-loop threads touch concurrently.
///
/// NIOConcurrencyHelpers is not a declared dependency of this target, hence this small box.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return try body(&self.value)
    }
}
