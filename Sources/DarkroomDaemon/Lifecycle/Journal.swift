import DarkroomCore
import DarkroomStorage
import Foundation

/// Stamps and appends journal records: time, event, this host and process.
///
/// A journal that cannot be written (a full disk) does not stop the work: the failure
/// is logged once per kind of error and the daemon goes on. Thread-safe.
public final class Journal: @unchecked Sendable {
    public let writer: JournalWriter
    public let host: String
    public let pid: Int32
    private let observer: (@Sendable (JournalRecord) -> Void)?
    private let lock = NSLock()
    private var lastFailure: String?

    /// - Parameter observer: sees every record after it is appended (live counts, tests).
    public init(writer: JournalWriter, host: String, pid: Int32, observer: (@Sendable (JournalRecord) -> Void)? = nil) {
        self.writer = writer
        self.host = host
        self.pid = pid
        self.observer = observer
    }

    public func record(_ event: JournalEvent, manifest: String? = nil, entry: String? = nil, _ fields: [JournalField] = []) {
        let record = JournalRecord(
            time: Date(), event: event, host: host, pid: pid, manifest: manifest, entry: entry, fields: fields)
        do {
            try writer.append(record)
            lock.withLock { lastFailure = nil }
        } catch {
            let message = "\(error)"
            let isNew = lock.withLock {
                defer { lastFailure = message }
                return lastFailure != message
            }
            if isNew { Log.error("journal: \(message)") }
        }
        observer?(record)
    }

    public func sync() {
        do { try writer.sync() } catch { Log.error("journal: \(error)") }
    }
}
