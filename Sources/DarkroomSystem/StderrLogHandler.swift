import Foundation
import Logging

/// A swift-log handler that writes one line per record to stderr, for operators.
///
/// When stderr is connected to the systemd journal (`$JOURNAL_STREAM` names the device
/// and inode of our stderr), each line starts with its sd-daemon priority — `<3>` error,
/// `<4>` warning, `<5>` notice, `<6>` info, `<7>` debug — so `journalctl -p warning`
/// filters work, and no timestamp is added (journald adds its own). Otherwise lines read
/// `darkroom: warning: message`. A record is one `write(2)`; newlines inside a message
/// are replaced by spaces, so one record is always one line. Thread-safe.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public let usesPriorityPrefixes: Bool

    public init(level: Logger.Level, usesPriorityPrefixes: Bool = StderrLogHandler.stderrIsJournal()) {
        self.logLevel = level
        self.usesPriorityPrefixes = usesPriorityPrefixes
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        write(Self.format(level: event.level, message: "\(event.message)", metadata: merged, prefixed: usesPriorityPrefixes))
    }

    /// The line for one record (pure, for tests).
    public static func format(level: Logger.Level, message: String, metadata: Logger.Metadata, prefixed: Bool) -> String {
        var text = message
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { text += " \(key)=\(value)" }
        text = String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        return prefixed ? "<\(priority(level))>\(text)\n" : "darkroom: \(level): \(text)\n"
    }

    /// The syslog priority of a level, as sd-daemon(3) prefixes use it.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether fd 2 is the stream systemd connected to the journal: `$JOURNAL_STREAM` is
    /// `DEVICE:INODE` of that stream, compared with fstat(2) so that a redirected stderr
    /// (`2>file` in a unit's ExecStart wrapper) is not mistaken for it.
    public static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    private func write(_ line: String) {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }
}
