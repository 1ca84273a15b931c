import ArgumentParser
import DarkroomDaemon
import DarkroomImaging
import Foundation

/// `darkroom run`: the daemon, in the foreground (SPEC §1).
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch the inbox and develop every manifest dropped into it (the daemon).",
        discussion: """
            Runs in the foreground until SIGTERM or SIGINT, then cancels all work and exits 0
            within a second; unfinished manifests are resumed by the next start.
            SIGHUP reopens the journal and rescans the inbox; SIGUSR1 pauses, SIGUSR2 resumes.
            """
    )

    @Option(help: "The hot folder manifests are dropped into (created if missing).")
    var inbox: String

    @Option(help: "Where developed images, result.plist files and the journal go (created if missing).")
    var outbox: String

    @Option(name: .customLong("download-concurrency"), help: "Downloads at once.")
    var downloadConcurrency = 8

    @Option(name: .customLong("filter-concurrency"), help: "Filters at once (default: number of CPU cores).")
    var filterConcurrency = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Extra attempts for transient failures, with exponential back-off.")
    var retries = 3

    @Option(name: .customLong("connect-timeout"), help: "Seconds to establish a connection.")
    var connectTimeout = 10.0

    @Option(help: "Seconds without receiving a byte before a download fails.")
    var timeout = 30.0

    @Option(name: .customLong("max-download-bytes"), help: "Largest download accepted, in bytes.")
    var maxDownloadBytes = 67_108_864

    @Option(name: .customLong("max-pixels"), help: "Largest image accepted, width × height.")
    var maxPixels: UInt64 = 100_000_000

    @Flag(name: .customLong("allow-file-urls"), help: "Also accept file:// URLs (default: only http and https).")
    var allowFileURLs = false

    @Flag(
        name: .customLong("deny-private-networks"),
        help: "Also refuse loopback and private addresses (link-local ones are always refused).")
    var denyPrivateNetworks = false

    @Option(help: "Output format for manifests that name none: jpeg, png or source.")
    var format: OutputFormat = .source

    @Option(help: "JPEG quality for manifests that name none, 1 to 100.")
    var quality = 90

    @Option(name: .customLong("rescan-interval"), help: "Seconds between full inbox scans, besides inotify.")
    var rescanInterval = 30.0

    @Option(help: "The journal file (default: OUTBOX/journal.jsonl).")
    var journal: String?

    @Option(name: .customLong("retry-base-delay"), help: .hidden)
    var retryBaseDelay = 0.5

    func validate() throws {
        guard downloadConcurrency >= 1 else { throw ValidationError("--download-concurrency must be at least 1") }
        guard filterConcurrency >= 1 else { throw ValidationError("--filter-concurrency must be at least 1") }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard connectTimeout > 0, timeout > 0 else { throw ValidationError("timeouts must be more than 0 seconds") }
        guard maxDownloadBytes > 0 else { throw ValidationError("--max-download-bytes must be more than 0") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be more than 0") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100") }
        guard rescanInterval > 0 else { throw ValidationError("--rescan-interval must be more than 0 seconds") }
    }

    var daemonConfiguration: DaemonConfiguration {
        var configuration = DaemonConfiguration(inbox: inbox, outbox: outbox)
        configuration.downloadConcurrency = downloadConcurrency
        configuration.filterConcurrency = filterConcurrency
        configuration.retries = retries
        configuration.connectTimeout = connectTimeout
        configuration.timeout = timeout
        configuration.maxDownloadBytes = maxDownloadBytes
        configuration.maxPixels = maxPixels
        configuration.allowFileURLs = allowFileURLs
        configuration.denyPrivateNetworks = denyPrivateNetworks
        configuration.format = format
        configuration.quality = quality
        configuration.rescanInterval = rescanInterval
        configuration.journal = journal
        configuration.retryBaseDelay = retryBaseDelay
        return configuration
    }

    func run() async throws {
        let daemon = Daemon(configuration: daemonConfiguration)
        do {
            try await daemon.run()
        } catch {
            FileHandle.standardError.write(Data("darkroom: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
