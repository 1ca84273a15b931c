import DarkroomImaging
import Foundation

/// Reads manifests (SPEC §2) from bytes. No I/O: the caller reads the file.
public enum ManifestParser {
    /// Parses a manifest's bytes into its entries.
    ///
    /// The size is checked against `options.maxBytes` first, before any parsing, so an
    /// oversized file costs nothing. The bytes are read with
    /// `PropertyListSerialization` (XML or binary), never `PropertyListDecoder`, which
    /// crashes on deep nesting; `PropertyListSerialization` refuses more than 512 levels
    /// with an error, which comes back here as a rejection. Old-style (OpenStep) text
    /// plists are rejected: SPEC §2 accepts XML and binary, and almost any text parses as
    /// an OpenStep string.
    ///
    /// The root must be a dictionary. If it has a `photos` key whose value is a
    /// dictionary or an array, the manifest is extended; otherwise it is classic, and
    /// every key is a photo name (a classic manifest has no manifest-level keys: a key
    /// `priority` is a photo called "priority"). Dictionary entries are processed in
    /// name order, array entries in array order.
    ///
    /// - Throws: ``ManifestRejection`` when the manifest cannot be used at all: too
    ///   large, not a property list, a root that is not a dictionary, more than
    ///   `options.maxEntries` entries, or a bad manifest-level `priority`, `intensity`,
    ///   `format` or `quality`. Problems of single entries are not thrown: they are in
    ///   each entry's ``ManifestEntry/problem``.
    public static func parse(_ data: Data, name: String, options: ManifestOptions = ManifestOptions()) throws(ManifestRejection) -> Manifest {
        guard data.count <= options.maxBytes else {
            throw ManifestRejection("\(data.count) bytes is more than the limit of \(options.maxBytes)")
        }
        guard !data.isEmpty else {
            throw ManifestRejection("not a property list: the file is empty")
        }
        guard !BinaryPropertyListScreen.containsSet(data) else {
            throw ManifestRejection("a binary property list with a set is not accepted (a manifest has no sets)")
        }
        let root: Any
        var format = PropertyListSerialization.PropertyListFormat.xml
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw ManifestRejection("not a property list: \(parserMessage(error))")
        }
        guard format != .openStep else {
            throw ManifestRejection("not a property list: old-style (OpenStep) text is not accepted; use an XML or binary property list")
        }
        let typedRoot = PropertyListValue(root)
        guard case .dictionary(let dictionary) = typedRoot else {
            throw ManifestRejection("the root is \(typedRoot.typeDescription); a manifest is a dictionary")
        }

        let defaults = EntrySettings(intensity: EntrySettings.defaultIntensity, format: options.defaultFormat, quality: options.defaultQuality)
        if let photos = dictionary["photos"] {
            switch PropertyListValue(photos) {
            case .dictionary(let photos):
                let level = try manifestLevel(dictionary)
                try checkCount(photos.count, options)
                guard let names = photos.sortedStringKeys() else {
                    throw ManifestRejection("a key of the photos dictionary is not a string")
                }
                let entries = dictionaryEntries(photos, names: names, priority: level.priority ?? .normal, settings: level.applied(to: defaults), options: options)
                return Manifest(name: name, shape: .extended, priority: level.priority ?? .normal, entries: entries)
            case .array(let photos):
                let level = try manifestLevel(dictionary)
                try checkCount(photos.count, options)
                let entries = arrayEntries(photos, priority: level.priority ?? .normal, settings: level.applied(to: defaults), options: options)
                return Manifest(name: name, shape: .extended, priority: level.priority ?? .normal, entries: entries)
            default:
                break
            }
        }
        try checkCount(dictionary.count, options)
        guard let names = dictionary.sortedStringKeys() else {
            throw ManifestRejection("a key of the root dictionary is not a string")
        }
        let entries = dictionaryEntries(dictionary, names: names, priority: .normal, settings: defaults, options: options)
        return Manifest(name: name, shape: .classic, priority: .normal, entries: entries)
    }

    /// The manifest name of an inbox file: `"x.plist"` → `"x"`.
    ///
    /// `nil` for files that are not manifests: names starting with `.` or ending in
    /// `.tmp` or `.part` (writers' temporary names, SPEC §2), names not ending in
    /// `.plist` (compared case-sensitively, like the rest of a Unix file name), `".plist"`
    /// itself, and names containing `/`.
    public static func manifestName(fileName: String) -> String? {
        guard !fileName.contains("/"),
              !fileName.hasPrefix("."),
              !fileName.hasSuffix(".tmp"),
              !fileName.hasSuffix(".part"),
              fileName.hasSuffix(".plist")
        else { return nil }
        let name = String(fileName.utf8.dropLast(".plist".utf8.count))!
        return name.isEmpty ? nil : name
    }

    // MARK: - Shapes

    private static func checkCount(_ count: Int, _ options: ManifestOptions) throws(ManifestRejection) {
        guard count <= options.maxEntries else {
            throw ManifestRejection("\(count) entries is more than the limit of \(options.maxEntries)")
        }
    }

    private static func manifestLevel(_ dictionary: PropertyListDictionary) throws(ManifestRejection) -> ManifestOptionValues.Overrides {
        do {
            return try ManifestOptionValues.Overrides(dictionary)
        } catch {
            throw ManifestRejection(error.message)
        }
    }

    /// Classic manifests and extended `photos` dictionaries: name → URL string.
    private static func dictionaryEntries(_ photos: PropertyListDictionary, names: [String], priority: Priority, settings: EntrySettings, options: ManifestOptions) -> [ManifestEntry] {
        names.enumerated().map { index, name in
            var entry = ManifestEntry(index: index, name: name, url: "", priority: priority, settings: settings)
            let value = PropertyListValue(photos[name]!)
            if case .string(let url) = value { entry.url = url }
            if let problem = nameProblem(name) {
                entry.problem = problem
            } else if case .string(let url) = value {
                entry.problem = urlProblem(url, options)
            } else {
                entry.problem = .invalidURL("value is \(value.typeDescription), not a URL string")
            }
            return entry
        }
    }

    /// Extended `photos` arrays: `{name, url, priority?, intensity?, format?, quality?}`.
    ///
    /// Problems are looked for in a fixed order (name, duplicate, options, URL) and the
    /// first one found is the entry's, so the same file always reports the same thing.
    private static func arrayEntries(_ photos: [Any], priority: Priority, settings: EntrySettings, options: ManifestOptions) -> [ManifestEntry] {
        var seen: [String: Int] = [:]
        seen.reserveCapacity(photos.count)
        return photos.enumerated().map { index, element in
            let position = index + 1
            var entry = ManifestEntry(index: index, name: "#\(position)", url: "", priority: priority, settings: settings)
            let typed = PropertyListValue(element)
            guard case .dictionary(let fields) = typed else {
                entry.problem = .invalidEntry("entry \(position) is \(typed.typeDescription), not a dictionary")
                return entry
            }

            var problem: EntryProblem?
            switch fields["name"].map(PropertyListValue.init) {
            case .string(let name)?:
                entry.name = name
                problem = nameProblem(name)
                if let first = seen[name] {
                    problem = problem ?? .invalidEntry("the name \(quoted(name)) is already used by entry \(first)")
                } else {
                    seen[name] = position
                }
            case nil:
                problem = .invalidEntry("entry \(position) has no name")
            case let other?:
                problem = .invalidEntry("entry \(position): name is \(other.typeDescription), not a string")
            }

            do throws(ManifestOptionValues.OptionError) {
                let overrides = try ManifestOptionValues.Overrides(fields)
                entry.priority = overrides.priority ?? priority
                entry.settings = overrides.applied(to: settings)
            } catch {
                problem = problem ?? .invalidEntry(error.message)
            }

            switch fields["url"].map(PropertyListValue.init) {
            case .string(let url)?:
                entry.url = url
                problem = problem ?? urlProblem(url, options)
            case nil:
                problem = problem ?? .invalidURL("no URL")
            case let other?:
                problem = problem ?? .invalidURL("url is \(other.typeDescription), not a URL string")
            }
            entry.problem = problem
            return entry
        }
    }

    // MARK: - Checks

    private static func nameProblem(_ name: String) -> EntryProblem? {
        if name.isEmpty { return .invalidEntry("the photo name is empty") }
        if name.allSatisfy(\.isWhitespace) { return .invalidEntry("the photo name is only white space") }
        return nil
    }

    private static func urlProblem(_ url: String, _ options: ManifestOptions) -> EntryProblem? {
        if case .failure(let problem) = URLPolicy.check(url, allowFileURLs: options.allowFileURLs) { return problem }
        return nil
    }

    /// Foundation's own sentence ("Unexpected character n at line 1"), without the
    /// generic "The data is not in the correct format." wrapper.
    private static func parserMessage(_ error: any Error) -> String {
        let nsError = error as NSError
        if let debug = nsError.userInfo["NSDebugDescription"] as? String, !debug.isEmpty { return debug }
        return nsError.localizedDescription
    }
}
