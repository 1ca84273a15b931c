import DarkroomCore
import DarkroomImaging
import Foundation

/// Every option of `darkroom run` (SPEC §1), with its default.
public struct DaemonConfiguration: Sendable, Equatable {
    public var inbox: String
    public var outbox: String
    /// Downloads at once. Default 8.
    public var downloadConcurrency = 8
    /// Filters at once. Default: the number of CPU cores.
    public var filterConcurrency = ProcessInfo.processInfo.activeProcessorCount
    /// Extra attempts for transient failures. Default 3.
    public var retries = 3
    /// Seconds to establish a connection. Default 10.
    public var connectTimeout = 10.0
    /// Seconds without receiving a byte before a download fails. Default 30.
    public var timeout = 30.0
    /// Largest body accepted, in bytes. Default 64 MiB.
    public var maxDownloadBytes = 64 << 20
    /// Largest image accepted, width × height. Default 100,000,000.
    public var maxPixels: UInt64 = 100_000_000
    /// Also accept `file://` URLs. Default off.
    public var allowFileURLs = false
    /// Also refuse loopback and private addresses. Default off.
    public var denyPrivateNetworks = false
    /// Filter JPEG → JPEG through RGB as well, not on the decoded YCbCr planes. Default off.
    public var exact = false
    /// Output format for manifests that name none. Default `source`.
    public var format: OutputFormat = .source
    /// JPEG quality for manifests that name none. Default 90.
    public var quality = 90
    /// Seconds between full inbox scans (inotify does the rest). Default 30.
    public var rescanInterval = 30.0
    /// The journal file. Default `OUTBOX/journal.jsonl`.
    public var journal: String?
    /// Base of the exponential back-off between attempts, in seconds. Default 0.5.
    public var retryBaseDelay = 0.5
    /// Longest wait between two attempts, in seconds. Default 30.
    public var retryMaxDelay = 30.0

    public init(inbox: String, outbox: String) {
        self.inbox = inbox
        self.outbox = outbox
    }

    public var journalPath: String { journal ?? "\(outbox)/journal.jsonl" }

    /// Entries admitted into the queues at once (downloading, downloaded and waiting
    /// for a filter, or filtering): the bound on requests, temporary files and images
    /// in flight, whatever the size of the manifests.
    public var admissionWindow: Int { downloadConcurrency + 2 * filterConcurrency }

    var manifestOptions: ManifestOptions {
        var options = ManifestOptions()
        options.defaultFormat = format
        options.defaultQuality = quality
        options.allowFileURLs = allowFileURLs
        return options
    }

    var retryPolicy: RetryPolicy {
        RetryPolicy(retries: retries, baseDelay: retryBaseDelay, maxDelay: retryMaxDelay)
    }
}
