import Logging

/// The operator log (swift-log; `run` installs `StderrLogHandler`). The journal file is
/// the record of work; this is for people running the daemon.
enum Log {
    static let logger = Logger(label: "darkroom")

    static func error(_ message: String) { logger.error("\(message)") }
    static func warning(_ message: String) { logger.warning("\(message)") }
    static func notice(_ message: String) { logger.notice("\(message)") }
    static func info(_ message: String) { logger.info("\(message)") }
    static func debug(_ message: String) { logger.debug("\(message)") }
}
