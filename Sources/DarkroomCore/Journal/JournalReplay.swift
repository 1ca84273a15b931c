/// Where an entry stands, after the last journal event about it.
public enum EntryState: String, Sendable, Codable {
    case queued
    case downloading
    case downloaded
    case filtering
    case filtered
    case skipped
    case failed
    case cancelled

    /// True for the states an entry ends a run in: filtered, skipped, failed, cancelled.
    public var isFinal: Bool {
        switch self {
        case .filtered, .skipped, .failed, .cancelled: true
        case .queued, .downloading, .downloaded, .filtering: false
        }
    }
}

/// An output file known to be complete: what it was made from and where it is.
public struct CompletedOutput: Sendable, Equatable {
    /// The URL text it was downloaded from.
    public var url: String
    /// The ``EntrySettings/fingerprint`` it was developed with.
    public var settings: String
    /// Its file name inside the manifest's outbox folder.
    public var output: String

    public init(url: String, settings: String, output: String) {
        self.url = url
        self.settings = settings
        self.output = output
    }
}

/// One entry as the journal describes it.
public struct ReplayedEntry: Sendable, Equatable {
    public var state: EntryState
    /// The last output recorded complete for this entry (by this submission or an earlier
    /// one); `nil` if none ever was.
    public var completed: CompletedOutput?

    public init(state: EntryState, completed: CompletedOutput? = nil) {
        self.state = state
        self.completed = completed
    }
}

/// One manifest as the journal describes it.
public struct ReplayedManifest: Sendable, Equatable {
    public var name: String
    /// True when the latest claim has a `manifest.finished` after it.
    public var isFinished: Bool
    /// How many times the manifest was claimed (submitted or resumed).
    public var claims: Int
    /// True when the latest claim has a `manifest.rejected` after it.
    public var isRejected: Bool
    /// True when the latest claim has a `manifest.cancelled` after it.
    public var isCancelled: Bool
    /// Photo name → entry.
    public var entries: [String: ReplayedEntry]

    public init(name: String, isFinished: Bool = false, claims: Int = 0, isRejected: Bool = false, isCancelled: Bool = false, entries: [String: ReplayedEntry] = [:]) {
        self.name = name
        self.isFinished = isFinished
        self.claims = claims
        self.isRejected = isRejected
        self.isCancelled = isCancelled
        self.entries = entries
    }

    /// Claimed and neither finished nor rejected: work a (re)starting daemon must finish.
    public var needsResume: Bool {
        claims > 0 && !isFinished && !isRejected
    }
}

/// The state of every manifest, rebuilt by reading the journal from the start.
///
/// This is how the daemon resumes (SPEC §4): it learns which claimed manifests are not
/// finished and which entries already have a complete output for their current URL and
/// settings, so they are skipped rather than redone.
///
/// - `manifest.claimed`: claims + 1, not finished, every known entry back to `queued`;
///   `completed` is kept, because it describes a file on disk, which a new submission
///   does not remove.
/// - `manifest.finished` / `manifest.rejected` / `manifest.cancelled`: flags set.
/// - `entry.*`: the entry's state (`entry.retrying` counts as `downloading`);
///   `entry.filtered` and `entry.skipped` with string fields `url`, `settings` and
///   `output` also set `completed`. A later `entry.failed` or `entry.cancelled` keeps
///   `completed`: the earlier file is still there and still matches its url and settings.
/// - Events of every host are applied: several daemons may share one journal, and a
///   manifest claimed by one can be finished by another.
/// - Records without a manifest name (`daemon.*`) are ignored.
public struct JournalReplay: Sendable {
    /// Manifest name → what the journal says about it.
    public private(set) var manifests: [String: ReplayedManifest] = [:]

    /// When non-nil, only these manifests are tracked, which bounds memory when a long
    /// journal is replayed for a few manifests.
    public let onlyManifests: Set<String>?

    /// A replay of nothing yet, tracking every manifest.
    public init() {
        onlyManifests = nil
    }

    /// A replay of nothing yet, tracking only `onlyManifests` (all when `nil`).
    public init(onlyManifests: Set<String>?) {
        self.onlyManifests = onlyManifests
    }

    /// A replay of `records`, in order, tracking every manifest.
    public init(records: some Sequence<JournalRecord>) {
        self.init()
        for record in records { apply(record) }
    }

    /// Applies one more journal record.
    public mutating func apply(_ record: JournalRecord) {
        guard let name = record.manifest else { return }
        if let onlyManifests, !onlyManifests.contains(name) { return }

        var manifest = manifests.removeValue(forKey: name) ?? ReplayedManifest(name: name)
        defer { manifests[name] = manifest }

        switch record.event {
        case .manifestClaimed:
            manifest.claims += 1
            manifest.isFinished = false
            manifest.isRejected = false
            manifest.isCancelled = false
            for key in manifest.entries.keys {
                manifest.entries[key]!.state = .queued
            }
        case .manifestFinished:
            manifest.isFinished = true
        case .manifestRejected:
            manifest.isRejected = true
        case .manifestCancelled:
            manifest.isCancelled = true
        case .entryQueued, .entryDownloading, .entryRetrying, .entryDownloaded, .entryFiltering,
             .entryFiltered, .entrySkipped, .entryFailed, .entryCancelled:
            guard let entryName = record.entry else { return }
            var entry = manifest.entries[entryName] ?? ReplayedEntry(state: .queued)
            entry.state = Self.state(after: record.event)
            if record.event == .entryFiltered || record.event == .entrySkipped,
               let url = record.string("url"), let settings = record.string("settings"), let output = record.string("output") {
                entry.completed = CompletedOutput(url: url, settings: settings, output: output)
            }
            manifest.entries[entryName] = entry
        case .daemonStarted, .daemonPaused, .daemonResumed, .daemonStopping, .daemonStopped:
            break
        }
    }

    /// The names of manifests that were claimed and not finished or rejected, sorted.
    public var manifestsNeedingResume: [String] {
        manifests.values.filter(\.needsResume).map(\.name).sorted()
    }

    private static func state(after event: JournalEvent) -> EntryState {
        switch event {
        case .entryDownloading, .entryRetrying: .downloading
        case .entryDownloaded: .downloaded
        case .entryFiltering: .filtering
        case .entryFiltered: .filtered
        case .entrySkipped: .skipped
        case .entryFailed: .failed
        case .entryCancelled: .cancelled
        default: .queued
        }
    }
}
