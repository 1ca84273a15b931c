import DarkroomCore
import DarkroomImaging
import Foundation

/// The options of `darkroom run` as given on one side — the command line or the config
/// file — each nil when not given there. `resolve` layers them: defaults, then the config
/// file, then the command line.
public struct RunOptions: Sendable, Equatable {
    public var inbox: String?
    public var outbox: String?
    public var downloadConcurrency: Int?
    public var filterConcurrency: Int?
    public var retries: Int?
    public var connectTimeout: Double?
    public var timeout: Double?
    public var maxDownloadBytes: Int?
    public var maxPixels: Int?
    public var allowFileURLs: Bool?
    public var denyPrivateNetworks: Bool?
    public var exact: Bool?
    public var format: String?
    public var quality: Int?
    public var rescanInterval: Double?
    public var journal: String?
    public var logLevel: String?

    public init() {}

    /// The config file's keys: the long option names.
    public static let keys: Set<String> = [
        "inbox", "outbox", "download-concurrency", "filter-concurrency", "retries", "connect-timeout", "timeout",
        "max-download-bytes", "max-pixels", "allow-file-urls", "deny-private-networks", "exact", "format", "quality",
        "rescan-interval", "journal", "log-level",
    ]

    /// Where `run` looks for a config file when `--config` is not given.
    public static let defaultConfigPath = "/etc/darkroom/darkroom.toml"

    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Reads the options a config file gives (types are checked here, ranges in `resolve`).
    public init(file: ConfigFile) throws(ConfigError) {
        inbox = try file.string("inbox")
        outbox = try file.string("outbox")
        downloadConcurrency = try file.integer("download-concurrency")
        filterConcurrency = try file.integer("filter-concurrency")
        retries = try file.integer("retries")
        connectTimeout = try file.number("connect-timeout")
        timeout = try file.number("timeout")
        maxDownloadBytes = try file.integer("max-download-bytes")
        maxPixels = try file.integer("max-pixels")
        allowFileURLs = try file.bool("allow-file-urls")
        denyPrivateNetworks = try file.bool("deny-private-networks")
        exact = try file.bool("exact")
        format = try file.string("format")
        quality = try file.integer("quality")
        rescanInterval = try file.number("rescan-interval")
        journal = try file.string("journal")
        logLevel = try file.string("log-level")
    }

    /// What `run` ends up with: the daemon's configuration and the log level.
    public struct Resolved: Sendable, Equatable {
        public var configuration: DaemonConfiguration
        public var logLevel: String
    }

    /// A problem with the final options, naming where the bad value came from.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Layers `commandLine` over `file` over the defaults and checks every value.
    /// A bad value from the file is reported with the file, line and key.
    public static func resolve(commandLine: RunOptions, file: ConfigFile?) throws -> Resolved {
        let fromFile = try file.map { try RunOptions(file: $0) } ?? RunOptions()
        func pick<T>(_ path: KeyPath<RunOptions, T?>) -> T? { commandLine[keyPath: path] ?? fromFile[keyPath: path] }
        /// Fails `condition` with the config file's line when the value came from there.
        func check<T>(_ path: KeyPath<RunOptions, T?>, key: String, _ message: String, _ isValid: (T) -> Bool) throws {
            guard let value = pick(path), !isValid(value) else { return }
            if commandLine[keyPath: path] == nil, let file {
                throw file.invalid(key, message)
            }
            throw Problem(description: "--\(key) \(message)")
        }

        guard let inbox = pick(\.inbox) else {
            throw Problem(description: "--inbox is required (or 'inbox = \"…\"' in the config file)")
        }
        guard let outbox = pick(\.outbox) else {
            throw Problem(description: "--outbox is required (or 'outbox = \"…\"' in the config file)")
        }
        try check(\.downloadConcurrency, key: "download-concurrency", "must be at least 1") { $0 >= 1 }
        try check(\.filterConcurrency, key: "filter-concurrency", "must be at least 1") { $0 >= 1 }
        try check(\.retries, key: "retries", "must be 0 or more") { $0 >= 0 }
        try check(\.connectTimeout, key: "connect-timeout", "must be more than 0 seconds") { $0 > 0 && $0.isFinite }
        try check(\.timeout, key: "timeout", "must be more than 0 seconds") { $0 > 0 && $0.isFinite }
        try check(\.maxDownloadBytes, key: "max-download-bytes", "must be more than 0") { $0 > 0 }
        try check(\.maxPixels, key: "max-pixels", "must be more than 0") { $0 > 0 }
        try check(\.quality, key: "quality", "must be between 1 and 100") { (1...100).contains($0) }
        try check(\.rescanInterval, key: "rescan-interval", "must be more than 0 seconds") { $0 > 0 && $0.isFinite }
        try check(\.format, key: "format", "must be jpeg, png or source") { OutputFormat(rawValue: $0) != nil }
        try check(\.logLevel, key: "log-level", "must be one of \(logLevels.joined(separator: ", "))") {
            logLevels.contains($0)
        }

        var configuration = DaemonConfiguration(inbox: inbox, outbox: outbox)
        configuration.downloadConcurrency = pick(\.downloadConcurrency) ?? configuration.downloadConcurrency
        configuration.filterConcurrency = pick(\.filterConcurrency) ?? configuration.filterConcurrency
        configuration.retries = pick(\.retries) ?? configuration.retries
        configuration.connectTimeout = pick(\.connectTimeout) ?? configuration.connectTimeout
        configuration.timeout = pick(\.timeout) ?? configuration.timeout
        configuration.maxDownloadBytes = pick(\.maxDownloadBytes) ?? configuration.maxDownloadBytes
        configuration.maxPixels = pick(\.maxPixels).map(UInt64.init) ?? configuration.maxPixels
        configuration.allowFileURLs = pick(\.allowFileURLs) ?? configuration.allowFileURLs
        configuration.denyPrivateNetworks = pick(\.denyPrivateNetworks) ?? configuration.denyPrivateNetworks
        configuration.exact = pick(\.exact) ?? configuration.exact
        configuration.format = pick(\.format).flatMap(OutputFormat.init(rawValue:)) ?? configuration.format
        configuration.quality = pick(\.quality) ?? configuration.quality
        configuration.rescanInterval = pick(\.rescanInterval) ?? configuration.rescanInterval
        configuration.journal = pick(\.journal)
        return Resolved(configuration: configuration, logLevel: pick(\.logLevel) ?? "info")
    }
}
