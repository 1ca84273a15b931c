import Foundation

/// The operations of one admitted entry.
struct EntryOperations {
    var download: DownloadOperation
    var filter: FilterOperation
}

/// The registry of work in progress, keyed by entry: the tutorial's `PendingOperations`.
///
/// An entry is in the registry from admission until its filter operation reports, so
/// it can never be queued twice, and cancelling one manifest finds exactly its
/// operations. Thread-safe.
final class PendingOperations: @unchecked Sendable {
    private let lock = NSLock()
    private var operations: [EntryKey: EntryOperations] = [:]

    /// Registers `entry`; false if it is already in progress.
    func insert(_ key: EntryKey, _ entry: EntryOperations) -> Bool {
        lock.withLock {
            guard operations[key] == nil else { return false }
            operations[key] = entry
            return true
        }
    }

    func remove(_ key: EntryKey) {
        lock.withLock { _ = operations.removeValue(forKey: key) }
    }

    func contains(_ key: EntryKey) -> Bool {
        lock.withLock { operations[key] != nil }
    }

    /// The operations of every entry of `manifest` in progress.
    func operations(ofManifest manifest: String) -> [EntryOperations] {
        lock.withLock { operations.filter { $0.key.manifest == manifest }.map(\.value) }
    }

    var count: Int { lock.withLock { operations.count } }
}
