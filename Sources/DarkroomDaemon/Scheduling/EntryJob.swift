import DarkroomCore
import Foundation

/// Identifies one entry of one manifest: the key of the registry of work in progress.
struct EntryKey: Hashable, Sendable, CustomStringConvertible {
    var manifest: String
    var entry: String
    var description: String { "\(manifest)/\(entry)" }
}

/// Everything needed to download and develop one entry; a value, cheap to keep in the
/// backlog by the hundred thousand (no operation exists for it until it is admitted).
struct EntryJob: Sendable {
    var key: EntryKey
    var url: URL
    var priority: Priority
    var settings: EntrySettings
    /// The output's file name without extension (see `PhotoFileName`).
    var baseName: String
    /// Where the body is downloaded to, a temporary file in the manifest's folder.
    var downloadPath: String
    /// The file a previous run wrote for this entry, replaced or removed on success.
    var previousOutput: String?
}

/// How an entry ended.
enum EntryOutcome: Sendable, Equatable {
    case filtered(output: String, width: Int, height: Int, milliseconds: Int)
    case failed(EntryProblem)
    /// The pipeline knows why (see `CancelReason`); the operation only knows it stopped.
    case cancelled
}

enum CancelReason: String, Sendable {
    /// `NAME.cancel` was dropped: final, the manifest finishes with the entry cancelled.
    case manifestCancelled = "manifest-cancelled"
    /// The daemon is stopping: the entry is redone when the manifest is resumed.
    case shutdown
}
