import Foundation

/// How one entry ended, as written in `result.plist`.
public struct EntryResult: Sendable, Equatable {
    /// `filtered`, `skipped`, `failed` or `cancelled`.
    public var state: EntryState
    /// The URL text as given in the manifest.
    public var url: String
    /// The output file name inside the manifest's folder, when there is one.
    public var output: String?
    /// `"code: message"` as in the journal, for failed (and cancelled) entries.
    public var error: String?
    /// The ``EntrySettings/fingerprint`` the output was made with.
    public var settings: String?

    public init(state: EntryState, url: String, output: String? = nil, error: String? = nil, settings: String? = nil) {
        self.state = state
        self.url = url
        self.output = output
        self.error = error
        self.settings = settings
    }
}

/// The number of entries that ended in each final state.
public struct ResultCounts: Sendable, Equatable {
    public var filtered = 0
    public var failed = 0
    public var skipped = 0
    public var cancelled = 0

    public init() {}

    public init(filtered: Int, failed: Int, skipped: Int, cancelled: Int) {
        self.filtered = filtered
        self.failed = failed
        self.skipped = skipped
        self.cancelled = cancelled
    }

    /// Counts one entry that ended in `state`; states that are not final are not counted.
    public mutating func count(_ state: EntryState) {
        switch state {
        case .filtered: filtered += 1
        case .failed: failed += 1
        case .skipped: skipped += 1
        case .cancelled: cancelled += 1
        case .queued, .downloading, .downloaded, .filtering: break
        }
    }

    /// The `counts` object of `manifest.finished`, in the order of SPEC §4.
    public var journalValue: JournalValue {
        .object([
            JournalField("filtered", .int(filtered)),
            JournalField("failed", .int(failed)),
            JournalField("skipped", .int(skipped)),
            JournalField("cancelled", .int(cancelled)),
        ])
    }
}

/// `result.plist` (SPEC §3): how every entry of a manifest ended.
public struct ManifestResult: Sendable, Equatable {
    /// The manifest name.
    public var manifest: String
    /// When the manifest finished. Stored to the second: XML property lists have no
    /// fractions of seconds.
    public var finished: Date
    /// Photo name → how it ended.
    public var entries: [String: EntryResult]

    public init(manifest: String, finished: Date, entries: [String: EntryResult]) {
        self.manifest = manifest
        self.finished = finished
        self.entries = entries
    }

    /// Computed from ``entries``.
    public var counts: ResultCounts {
        var counts = ResultCounts()
        for entry in entries.values { counts.count(entry.state) }
        return counts
    }

    /// The XML property list: `manifest`, `finished` (date), `counts` (`filtered`,
    /// `failed`, `skipped`, `cancelled`) and `entries` (name → `{state, url, output?,
    /// error?, settings?}`; absent values are left out, not written empty).
    ///
    /// Written directly (see ``PropertyListXMLWriter``), entries in name order, so the
    /// memory it takes is the size of the text: a manifest of 100,000 entries costs ~25 MB
    /// once, not half a gigabyte.
    public func propertyListData() -> Data {
        Data(propertyListBytes())
    }

    /// ``propertyListData()`` as bytes, without the copy into `Data`.
    public func propertyListBytes() -> [UInt8] {
        let counts = counts
        var writer = PropertyListXMLWriter(reservingCapacity: 512 + entries.count * 256)
        writer.beginDictionary()
        writer.dictionary("counts") { writer in
            writer.integer("cancelled", counts.cancelled)
            writer.integer("failed", counts.failed)
            writer.integer("filtered", counts.filtered)
            writer.integer("skipped", counts.skipped)
        }
        writer.dictionary("entries") { writer in
            for name in entries.keys.sorted() {
                let entry = entries[name]!
                writer.dictionary(name) { writer in
                    if let error = entry.error { writer.string("error", error) }
                    if let output = entry.output { writer.string("output", output) }
                    if let settings = entry.settings { writer.string("settings", settings) }
                    writer.string("state", entry.state.rawValue)
                    writer.string("url", entry.url)
                }
            }
        }
        writer.date("finished", finished)
        writer.string("manifest", manifest)
        writer.endDictionary()
        return writer.finish()
    }

    /// Reads a `result.plist` back (for re-submission after journal rotation, and for
    /// `darkroom status`). The stored `counts` are not read: they follow from the entries.
    ///
    /// - Throws: ``ManifestResultError`` when the bytes are not such a property list.
    public init(propertyListData data: Data) throws {
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ManifestResultError("not a property list: \((error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)")")
        }
        guard case .dictionary(let dictionary) = PropertyListValue(root) else {
            throw ManifestResultError("the root is not a dictionary")
        }
        guard case .string(let manifest)? = dictionary["manifest"].map(PropertyListValue.init) else {
            throw ManifestResultError("no manifest name")
        }
        guard let finished = dictionary["finished"] as? Date else {
            throw ManifestResultError("no finished date")
        }
        guard case .dictionary(let entryDictionaries)? = dictionary["entries"].map(PropertyListValue.init) else {
            throw ManifestResultError("no entries dictionary")
        }
        guard let names = entryDictionaries.sortedStringKeys() else {
            throw ManifestResultError("an entry name is not a string")
        }
        var entries: [String: EntryResult] = [:]
        for name in names {
            guard case .dictionary(let fields) = PropertyListValue(entryDictionaries[name]!) else {
                throw ManifestResultError("entry \(quoted(name)) is not a dictionary")
            }
            func string(_ key: String) -> String? {
                if case .string(let text)? = fields[key].map(PropertyListValue.init) { return text }
                return nil
            }
            guard let stateName = string("state"), let state = EntryState(rawValue: stateName) else {
                throw ManifestResultError("entry \(quoted(name)) has no valid state")
            }
            entries[name] = EntryResult(state: state, url: string("url") ?? "", output: string("output"), error: string("error"), settings: string("settings"))
        }
        self.init(manifest: manifest, finished: finished, entries: entries)
    }
}

/// Why a `result.plist` could not be read.
public struct ManifestResultError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
