/// The events of the journal (SPEC §4), named as they appear in its `event` field.
public enum JournalEvent: String, Sendable, CaseIterable, Codable {
    case daemonStarted = "daemon.started"
    case daemonPaused = "daemon.paused"
    case daemonResumed = "daemon.resumed"
    case daemonStopping = "daemon.stopping"
    case daemonStopped = "daemon.stopped"
    case manifestClaimed = "manifest.claimed"
    case manifestRejected = "manifest.rejected"
    case manifestCancelled = "manifest.cancelled"
    case manifestFinished = "manifest.finished"
    case entryQueued = "entry.queued"
    case entryDownloading = "entry.downloading"
    case entryDownloaded = "entry.downloaded"
    case entryFiltering = "entry.filtering"
    case entryFiltered = "entry.filtered"
    case entrySkipped = "entry.skipped"
    case entryRetrying = "entry.retrying"
    case entryFailed = "entry.failed"
    case entryCancelled = "entry.cancelled"

    /// True for `daemon.*` and `manifest.*`: the journal writer fsyncs after these.
    ///
    /// They are rare and they are what resuming depends on (a claim, a finish); entry
    /// events are many, and one lost in a power cut only means redoing that entry,
    /// because outputs are checked on disk anyway.
    public var isDurablePoint: Bool {
        !isEntryEvent
    }

    /// True for `entry.*`.
    public var isEntryEvent: Bool {
        rawValue.hasPrefix("entry.")
    }
}
