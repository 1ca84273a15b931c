import ArgumentParser
import DarkroomCore
import DarkroomStorage
import Foundation

/// `darkroom status`: per manifest, what is queued, running, done and failed, from the journal.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show what is queued, running, done and failed, per manifest.")

    @Option(help: "The daemon's outbox.")
    var outbox: String

    @Option(help: "The journal file (default: OUTBOX/journal.jsonl).")
    var journal: String?

    func run() throws {
        let path = journal ?? Outbox(folder: outbox).defaultJournalPath
        try requireJournal(at: path)
        var replay = JournalReplay()
        var rejected: [String: String] = [:]
        // The entries each manifest's latest submission journaled: replay keeps every entry
        // it ever saw (back to `queued` on a new claim), including ones a new version dropped.
        var current: [String: Set<String>] = [:]
        try JournalReader(path: path).forEach { record in
            replay.apply(record)
            guard let name = record.manifest else { return }
            if record.event == .manifestRejected {
                rejected[name] = record.string("error") ?? ""
            } else if record.event == .manifestClaimed {
                current[name] = []
            } else if record.event.isEntryEvent, let entry = record.entry {
                current[name, default: []].insert(entry)
            }
        }
        // The next claim clears `isRejected`: it means the latest submission of that name
        // was rejected, even if an earlier one was developed.
        let isRejected: (String) -> Bool = { replay.manifests[$0]?.isRejected ?? true }
        let columns = ["MANIFEST", "STATE", "QUEUED", "RUNNING", "FILTERED", "SKIPPED", "FAILED", "CANCELLED"]
        var rows: [[String]] = []
        for (name, manifest) in replay.manifests.sorted(by: { $0.key < $1.key }) where !manifest.isRejected {
            var counts: [EntryState: Int] = [:]
            for (entry, state) in manifest.entries where current[name]?.contains(entry) ?? true {
                counts[state.state, default: 0] += 1
            }
            let running = [EntryState.downloading, .downloaded, .filtering].reduce(0) { $0 + counts[$1, default: 0] }
            rows.append([
                name, manifest.isFinished ? "finished" : "in progress", "\(counts[.queued, default: 0])", "\(running)",
                "\(counts[.filtered, default: 0])", "\(counts[.skipped, default: 0])", "\(counts[.failed, default: 0])",
                "\(counts[.cancelled, default: 0])",
            ])
        }
        for (name, _) in rejected.sorted(by: { $0.key < $1.key }) where isRejected(name) {
            rows.append([name, "rejected", "-", "-", "-", "-", "-", "-"])
        }
        print(Table.render([columns] + rows))
        for (name, reason) in rejected.sorted(by: { $0.key < $1.key }) where isRejected(name) {
            print("\(name): rejected: \(reason)")
        }
    }
}

/// `darkroom journal`: the journal as readable lines, like `journalctl`.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal", abstract: "Print the journal as readable lines; --follow keeps printing new ones.")

    @Option(help: "The daemon's outbox.")
    var outbox: String

    @Option(help: "The journal file (default: OUTBOX/journal.jsonl).")
    var journal: String?

    @Flag(help: "Keep printing lines as they are appended.")
    var follow = false

    @Option(help: "Only the lines of this manifest.")
    var manifest: String?

    @Option(name: [.customShort("n"), .customLong("lines")], help: "Print only the last N lines already written (default: all).")
    var lines: Int?

    func validate() throws {
        if let lines, lines < 0 { throw ValidationError("--lines must be 0 or more") }
    }

    func run() throws {
        let path = journal ?? Outbox(folder: outbox).defaultJournalPath
        // --follow waits for a journal that does not exist yet (a daemon about to start).
        if !follow { try requireJournal(at: path) }
        let reader = JournalReader(path: path)
        let matches: (JournalRecord) -> Bool = { manifest == nil || $0.manifest == manifest }
        let show: (JournalRecord) -> Void = { record in
            // One write per line, unbuffered, so a pipe (| grep) sees each line at once.
            FileHandle.standardOutput.write(Data((JournalLine.format(record) + "\n").utf8))
        }
        let end: Int
        if let lines {
            var last: [JournalRecord] = []
            end = try reader.forEach { record in
                guard matches(record), lines > 0 else { return }
                last.append(record)
                if last.count > lines * 2 { last.removeFirst(last.count - lines) }
            }
            last.suffix(lines).forEach(show)
        } else {
            end = try reader.forEach { if matches($0) { show($0) } }
        }
        if follow { try reader.follow(from: end) { if matches($0) { show($0) } } }
    }
}

/// A mistyped --outbox should say so, not print an empty table.
func requireJournal(at path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else {
        FileHandle.standardError.write(Data("darkroom: no journal at \(path)\n".utf8))
        throw ExitCode(1)
    }
}

/// One record as a line: `TIME HOST[PID] EVENT MANIFEST/ENTRY key=value ...`.
///
/// Names and values come from outside (manifests, servers), so control characters are
/// written as escapes (`\n`, `\t`, `\u{1B}`): one record is always one line, and a
/// value cannot forge a line or drive the terminal. A value with a space, a quote, an
/// `=` or a control character is quoted, with `\` and `"` escaped inside the quotes.
enum JournalLine {
    static func format(_ record: JournalRecord) -> String {
        var line = "\(RFC3339.string(from: record.time)) \(escaped(record.host))[\(record.pid)] \(record.event.rawValue)"
        switch (record.manifest, record.entry) {
        case (let manifest?, let entry?): line += " \(escaped(manifest))/\(escaped(entry))"
        case (let manifest?, nil): line += " \(escaped(manifest))"
        default: break
        }
        for field in record.fields { line += " \(escaped(field.key))=\(value(field.value))" }
        return line
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `text` with control characters escaped; with `quoting`, also `\` and `"`.
    private static func escaped(_ text: String, quoting: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || (quoting && ($0 == "\\" || $0 == "\"")) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\" where quoting: result += "\\\\"
            case "\"" where quoting: result += "\\\""
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func value(_ value: JournalValue) -> String {
        switch value {
        case .string(let text):
            let needsQuotes = text.isEmpty || text.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || isControl($0) }
            return needsQuotes ? "\"\(escaped(text, quoting: true))\"" : text
        case .int(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .bool(let flag): return "\(flag)"
        case .object(let fields): return "{" + fields.map { "\(escaped($0.key))=\(Self.value($0.value))" }.joined(separator: " ") + "}"
        }
    }
}

/// Left-aligned first column, right-aligned numbers.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        let widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
