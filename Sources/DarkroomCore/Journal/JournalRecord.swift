import Foundation

/// One line of `outbox/journal.jsonl` (SPEC §4).
///
/// Every line is one JSON object: `time`, `event`, `host`, `pid`, then `manifest` and
/// `entry` when set, then the event's own fields in order.
///
/// ## Fields the daemon writes
///
/// | event | fields |
/// |---|---|
/// | `daemon.started` … `daemon.stopped` | whatever helps (e.g. `inbox`, `outbox`, `version`) |
/// | `manifest.claimed` | `priority` (string), `entries` (int) |
/// | `manifest.rejected` | `error` (the rejection sentence) |
/// | `manifest.cancelled` | — |
/// | `manifest.finished` | `counts`: object `{filtered, failed, skipped, cancelled}` of ints |
/// | `entry.queued` | `url`, `priority`, `settings` (the ``EntrySettings/fingerprint``) |
/// | `entry.downloading` | `url`, `attempt` (int, from 1) |
/// | `entry.retrying` | `attempt` (the next one), `error` (`"code: message"`), `delay_ms` (int) |
/// | `entry.downloaded` | `bytes`, `ms` (ints) |
/// | `entry.filtering` | — |
/// | `entry.filtered` | `url`, `settings`, `output` (file name inside the manifest's folder), `width`, `height`, `ms` |
/// | `entry.skipped` | `url`, `settings`, `output` |
/// | `entry.failed` | `error` (`"code: message"`, e.g. `"http-404: server answered 404 Not Found"`), and `url` |
/// | `entry.cancelled` | `reason`: `"manifest-cancelled"` or `"shutdown"` |
///
/// ``JournalReplay`` relies on `url`, `settings` and `output` of `entry.filtered` and
/// `entry.skipped`; the rest is for people and for `darkroom status`.
public struct JournalRecord: Sendable, Equatable {
    /// When it happened. Written to the millisecond, in UTC.
    public var time: Date
    public var event: JournalEvent
    /// The host name of the daemon that wrote the line (several daemons may share a
    /// journal, SPEC §7).
    public var host: String
    public var pid: Int32
    /// The manifest name; set on `manifest.*` and `entry.*` events.
    public var manifest: String?
    /// The photo name; set on `entry.*` events.
    public var entry: String?
    /// The event's own fields, in the order written. Keys equal to one of the fixed keys
    /// (`time`, `event`, `host`, `pid`, `manifest`, `entry`), or repeating an earlier
    /// field's key, are not written: a JSON object with a repeated key is ambiguous.
    public var fields: [JournalField]

    /// The keys every line starts with; field keys may not reuse them.
    public static let reservedKeys = ["time", "event", "host", "pid", "manifest", "entry"]

    public init(time: Date = Date(), event: JournalEvent, host: String, pid: Int32, manifest: String? = nil, entry: String? = nil, fields: [JournalField] = []) {
        self.time = time
        self.event = event
        self.host = host
        self.pid = pid
        self.manifest = manifest
        self.entry = entry
        self.fields = fields
    }

    /// The value of the first field called `key`.
    public subscript(field key: String) -> JournalValue? {
        fields.first { $0.key == key }?.value
    }

    /// The field `key` if it is a string.
    public func string(_ key: String) -> String? {
        self[field: key]?.stringValue
    }

    /// The field `key` if it is an integer.
    public func int(_ key: String) -> Int? {
        self[field: key]?.intValue
    }

    /// The field `key` if it is a number (integer or real).
    public func double(_ key: String) -> Double? {
        self[field: key]?.doubleValue
    }

    /// The record as one JSON object and `"\n"`: ready for a single `write(2)`.
    ///
    /// Deterministic: the same record always gives the same bytes. Strings are escaped
    /// as JSON requires, control characters as `\u00XX` (or `\n`, `\t`, …), other
    /// non-ASCII text left as UTF-8. Doubles are written so that they read back
    /// identical; NaN and infinities, which JSON cannot express, are written as `null`
    /// (read back, such a field is absent). `time` is RFC 3339 UTC with milliseconds,
    /// e.g. `"2026-11-21T06:40:00.123Z"`.
    public func encodedLine() -> [UInt8] {
        var encoder = JSONLineEncoder()
        encoder.raw("{\"time\":\"")
        RFC3339.append(time, to: &encoder.bytes)
        encoder.raw("\",\"event\":")
        encoder.string(event.rawValue)
        encoder.raw(",\"host\":")
        encoder.string(host)
        encoder.raw(",\"pid\":")
        encoder.bytes.append(contentsOf: String(pid).utf8)
        if let manifest {
            encoder.raw(",\"manifest\":")
            encoder.string(manifest)
        }
        if let entry {
            encoder.raw(",\"entry\":")
            encoder.string(entry)
        }
        encoder.object(fields, reserved: Self.reservedKeys, first: false)
        encoder.raw("}\n")
        return encoder.bytes
    }

    /// Reads one journal line, with or without its trailing newline.
    ///
    /// `nil` — never a trap — for an empty line, a torn line (the tail of a write cut by a
    /// crash), or a foreign one: not one JSON object, or missing a valid `time`, a known
    /// `event`, a string `host` or an integer `pid`, or with a `manifest`/`entry` that is
    /// not a string. Fields holding arrays or `null` are left out; a repeated fixed key
    /// counts once, the first time.
    public init?(line: some Collection<UInt8>) {
        let parsed: [(key: String, value: JSONLineParser.Value)]?
        if let direct = line.withContiguousStorageIfAvailable({ JSONLineParser.object(in: $0) }) {
            parsed = direct
        } else {
            parsed = Array(line).withUnsafeBufferPointer { JSONLineParser.object(in: $0) }
        }
        guard let members = parsed else { return nil }

        var time: Date?, event: JournalEvent?, host: String?, pid: Int32?
        var manifest: String?, entry: String?
        var seen: Set<String> = []
        var fields: [JournalField] = []
        for (key, value) in members {
            if Self.reservedKeys.contains(key) {
                guard seen.insert(key).inserted else { continue }
                switch (key, value) {
                case ("time", .string(let text)): time = RFC3339.date(from: text)
                case ("event", .string(let text)): event = JournalEvent(rawValue: text)
                case ("host", .string(let text)): host = text
                case ("pid", .int(let number)): pid = Int32(exactly: number)
                case ("manifest", .string(let text)): manifest = text
                case ("entry", .string(let text)): entry = text
                case ("manifest", .null), ("entry", .null): break
                default: return nil
                }
            } else if let journalValue = value.journalValue {
                fields.append(JournalField(key, journalValue))
            }
        }
        guard let time, let event, let host, let pid else { return nil }
        self.init(time: time, event: event, host: host, pid: pid, manifest: manifest, entry: entry, fields: fields)
    }
}
