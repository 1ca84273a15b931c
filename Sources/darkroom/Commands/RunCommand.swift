import ArgumentParser
import DarkroomCore
import DarkroomDaemon
import DarkroomSystem
import Foundation
import Logging

/// `darkroom run`: the daemon, in the foreground (SPEC §1).
///
/// Every option can also be set in a config file (`--config FILE`, default
/// /etc/darkroom/darkroom.toml when it exists) under its long name; the command line wins.
/// Options have no ArgumentParser defaults so that "not given" can be told from "given
/// the default"; the defaults are stated in the help and applied by `RunOptions.resolve`.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch the inbox and develop every manifest dropped into it (the daemon).",
        discussion: """
            Runs in the foreground until SIGTERM or SIGINT, then cancels all work and exits 0
            within a second; unfinished manifests are resumed by the next start.
            SIGHUP reopens the journal and rescans the inbox; SIGUSR1 pauses, SIGUSR2 resumes.
            Under systemd (Type=notify) it sends READY=1, STATUS=, WATCHDOG=1 and STOPPING=1.

            Every option may be set in the config file as `name = value` (e.g.
            download-concurrency = 4, format = "jpeg"); command-line options override it.
            """
    )

    @Option(help: ArgumentHelp("Config file (TOML).", valueName: "file"))
    var config: String?

    @Option(help: "The hot folder manifests are dropped into (created if missing).")
    var inbox: String?

    @Option(help: "Where developed images, result.plist files and the journal go (created if missing).")
    var outbox: String?

    @Option(name: .customLong("download-concurrency"), help: "Downloads at once. (default: 8)")
    var downloadConcurrency: Int?

    @Option(name: .customLong("filter-concurrency"), help: "Filters at once. (default: number of CPU cores)")
    var filterConcurrency: Int?

    @Option(help: "Extra attempts for transient failures, with exponential back-off. (default: 3)")
    var retries: Int?

    @Option(name: .customLong("connect-timeout"), help: "Seconds to establish a connection. (default: 10)")
    var connectTimeout: Double?

    @Option(help: "Seconds without receiving a byte before a download fails. (default: 30)")
    var timeout: Double?

    @Option(name: .customLong("max-download-bytes"), help: "Largest download accepted, in bytes. (default: 67108864)")
    var maxDownloadBytes: Int?

    @Option(name: .customLong("max-pixels"), help: "Largest image accepted, width × height. (default: 100000000)")
    var maxPixels: Int?

    @Flag(
        name: .customLong("allow-file-urls"), inversion: .prefixedNo,
        help: "Also accept file:// URLs. (default: off: only http and https)")
    var allowFileURLs: Bool?

    @Flag(
        name: .customLong("deny-private-networks"), inversion: .prefixedNo,
        help: "Also refuse loopback and private addresses; link-local ones are always refused. (default: off)")
    var denyPrivateNetworks: Bool?

    @Flag(
        name: .customLong("exact"), inversion: .prefixedNo,
        help: "Filter JPEG → JPEG through RGB too, not on the YCbCr planes. (default: off: the fast path)")
    var exact: Bool?

    @Option(help: "Output format for manifests that name none: jpeg, png or source. (default: source)")
    var format: String?

    @Option(help: "JPEG quality for manifests that name none, 1 to 100. (default: 90)")
    var quality: Int?

    @Option(name: .customLong("rescan-interval"), help: "Seconds between full inbox scans, besides inotify. (default: 30)")
    var rescanInterval: Double?

    @Option(help: "The journal file. (default: OUTBOX/journal.jsonl)")
    var journal: String?

    @Option(
        name: .customLong("log-level"),
        help: "Operator log on stderr: trace, debug, info, notice, warning, error, critical. (default: info)")
    var logLevel: String?

    @Option(name: .customLong("retry-base-delay"), help: .hidden)
    var retryBaseDelay: Double?

    var commandLine: RunOptions {
        var options = RunOptions()
        options.inbox = inbox
        options.outbox = outbox
        options.downloadConcurrency = downloadConcurrency
        options.filterConcurrency = filterConcurrency
        options.retries = retries
        options.connectTimeout = connectTimeout
        options.timeout = timeout
        options.maxDownloadBytes = maxDownloadBytes
        options.maxPixels = maxPixels
        options.allowFileURLs = allowFileURLs
        options.denyPrivateNetworks = denyPrivateNetworks
        options.exact = exact
        options.format = format
        options.quality = quality
        options.rescanInterval = rescanInterval
        options.journal = journal
        options.logLevel = logLevel
        return options
    }

    /// Reads the config file: `--config`, or the default path when it exists.
    private func configFile() throws -> ConfigFile? {
        let path: String
        if let config {
            path = config
        } else if FileManager.default.fileExists(atPath: RunOptions.defaultConfigPath) {
            path = RunOptions.defaultConfigPath
        } else {
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read the config file \(path)")
        }
        return try ConfigFile(text: String(decoding: data, as: UTF8.self), path: path, keys: RunOptions.keys)
    }

    func run() async throws {
        Heap.keepFreedMemory()
        let resolved: RunOptions.Resolved
        do {
            resolved = try RunOptions.resolve(commandLine: commandLine, file: configFile())
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        } catch let error as RunOptions.Problem {
            throw ValidationError(error.description)
        }
        var configuration = resolved.configuration
        if let retryBaseDelay { configuration.retryBaseDelay = retryBaseDelay }
        let level = Logger.Level(rawValue: resolved.logLevel) ?? .info
        LoggingSystem.bootstrap { _ in StderrLogHandler(level: level) }

        let daemon = Daemon(configuration: configuration, notifier: SystemdNotifier())
        do {
            try await daemon.run()
        } catch {
            Logger(label: "darkroom").error("\(error)")
            throw ExitCode(1)
        }
    }
}
