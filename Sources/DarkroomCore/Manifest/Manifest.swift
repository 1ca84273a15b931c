import DarkroomImaging

/// Which of the two manifest shapes of SPEC §2 a manifest has.
public enum ManifestShape: String, Sendable {
    /// The tutorial's `ClassicPhotosDictionary.plist`: photo name → URL string.
    case classic
    /// A dictionary with a `photos` dictionary or array, and optional manifest-level keys.
    case extended
}

/// One photo of a manifest, with everything already resolved: its priority and settings
/// include the manifest-level values and the daemon's defaults.
public struct ManifestEntry: Sendable, Equatable {
    /// Position in processing order, from 0: array order for an array manifest, name
    /// order for a dictionary (dictionaries have no order of their own).
    public var index: Int
    /// The photo name as given. An array element with no string `name` gets
    /// `"#<position from 1>"` so that it can still be reported. A later duplicate in an
    /// array keeps its (repeated) name; it is invalid, so only the first one is processed.
    public var name: String
    /// The URL text as given, untrimmed; `""` when missing or not a string.
    public var url: String
    /// The entry's own priority, else the manifest's, else ``Priority/normal``.
    public var priority: Priority
    /// The entry's own settings over the manifest's over the daemon's defaults.
    public var settings: EntrySettings
    /// Why the entry cannot be processed; `nil` when it is valid.
    public var problem: EntryProblem?

    public init(index: Int, name: String, url: String, priority: Priority = .normal, settings: EntrySettings = EntrySettings(), problem: EntryProblem? = nil) {
        self.index = index
        self.name = name
        self.url = url
        self.priority = priority
        self.settings = settings
        self.problem = problem
    }

    public var isValid: Bool { problem == nil }
}

/// A parsed manifest: every entry, valid or not, in processing order.
public struct Manifest: Sendable, Equatable {
    /// The manifest's name: its file name without `.plist`, also its outbox folder.
    public var name: String
    public var shape: ManifestShape
    /// The manifest-level priority; ``Priority/normal`` when not given (and always for
    /// a classic manifest, which has no manifest-level keys).
    public var priority: Priority
    public var entries: [ManifestEntry]

    public init(name: String, shape: ManifestShape, priority: Priority = .normal, entries: [ManifestEntry]) {
        self.name = name
        self.shape = shape
        self.priority = priority
        self.entries = entries
    }

    /// The entries that can be processed.
    public var validEntries: [ManifestEntry] { entries.filter(\.isValid) }
    /// The entries that fail on their own.
    public var invalidEntries: [ManifestEntry] { entries.filter { !$0.isValid } }
}

/// Why a whole manifest cannot be read (SPEC §2): it is moved aside with this reason.
public struct ManifestRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// A human sentence, e.g. `the root is an array; a manifest is a dictionary`.
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Limits and defaults applied when parsing a manifest.
public struct ManifestOptions: Sendable {
    /// Larger files are rejected before parsing. Default 16 MiB.
    public var maxBytes: Int
    /// Manifests with more entries are rejected. Default 200,000.
    public var maxEntries: Int
    /// The format of entries whose manifest says nothing (`--format`). Default `.source`.
    public var defaultFormat: OutputFormat
    /// The quality of entries whose manifest says nothing (`--quality`). Default 90.
    public var defaultQuality: Int
    /// Whether `file://` URLs are accepted (`--allow-file-urls`). Default `false`.
    public var allowFileURLs: Bool

    public init(maxBytes: Int = 16 << 20, maxEntries: Int = 200_000, defaultFormat: OutputFormat = .source, defaultQuality: Int = 90, allowFileURLs: Bool = false) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
        self.defaultFormat = defaultFormat
        self.defaultQuality = defaultQuality
        self.allowFileURLs = allowFileURLs
    }
}
