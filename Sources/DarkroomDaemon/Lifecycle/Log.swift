import Foundation

/// Operator log lines on stderr (the journal file is the record of work).
public enum Log {
    public static func error(_ message: String) { write("error", message) }
    public static func warning(_ message: String) { write("warning", message) }
    public static func info(_ message: String) { write("info", message) }

    private static func write(_ level: String, _ message: String) {
        FileHandle.standardError.write(Data("darkroom: \(level): \(message)\n".utf8))
    }
}
