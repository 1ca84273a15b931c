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
        var replay = JournalReplay()
        var rejected: [String: String] = [:]
        try JournalReader(path: path).forEach { record in
            replay.apply(record)
            if record.event == .manifestRejected, let name = record.manifest {
                rejected[name] = record.string("error") ?? ""
            }
        }
        let columns = ["MANIFEST", "STATE", "QUEUED", "RUNNING", "FILTERED", "SKIPPED", "FAILED", "CANCELLED"]
        var rows: [[String]] = []
        for (name, manifest) in replay.manifests.sorted(by: { $0.key < $1.key }) {
            var counts: [EntryState: Int] = [:]
            for entry in manifest.entries.values { counts[entry.state, default: 0] += 1 }
            let running = [EntryState.downloading, .downloaded, .filtering].reduce(0) { $0 + counts[$1, default: 0] }
            rows.append([
                name, manifest.isFinished ? "finished" : "in progress", "\(counts[.queued, default: 0])", "\(running)",
                "\(counts[.filtered, default: 0])", "\(counts[.skipped, default: 0])", "\(counts[.failed, default: 0])",
                "\(counts[.cancelled, default: 0])",
            ])
        }
        for (name, _) in rejected.sorted(by: { $0.key < $1.key }) where replay.manifests[name] == nil {
            rows.append([name, "rejected", "-", "-", "-", "-", "-", "-"])
        }
        print(Table.render([columns] + rows))
        for (name, reason) in rejected.sorted(by: { $0.key < $1.key }) where replay.manifests[name] == nil {
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

    @Option(name: [.short, .customLong("lines")], help: "Print only the last N lines already written (default: all).")
    var lines: Int?

    func validate() throws {
        if let lines, lines < 0 { throw ValidationError("--lines must be 0 or more") }
    }

    func run() throws {
        let reader = JournalReader(path: journal ?? Outbox(folder: outbox).defaultJournalPath)
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

/// One record as a line: `TIME HOST[PID] EVENT MANIFEST/ENTRY key=value ...`.
enum JournalLine {
    static func format(_ record: JournalRecord) -> String {
        var line = "\(RFC3339.string(from: record.time)) \(record.host)[\(record.pid)] \(record.event.rawValue)"
        switch (record.manifest, record.entry) {
        case (let manifest?, let entry?): line += " \(manifest)/\(entry)"
        case (let manifest?, nil): line += " \(manifest)"
        default: break
        }
        for field in record.fields { line += " \(field.key)=\(value(field.value))" }
        return line
    }

    private static func value(_ value: JournalValue) -> String {
        switch value {
        case .string(let text):
            return text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) || text.isEmpty
                ? "\"\(text.replacingOccurrences(of: "\"", with: "\\\""))\"" : text
        case .int(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .bool(let flag): return "\(flag)"
        case .object(let fields): return "{" + fields.map { "\($0.key)=\(Self.value($0.value))" }.joined(separator: " ") + "}"
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
