import DarkroomCore
import DarkroomNetwork
import Foundation

/// Downloads one entry's image to its temporary file, on the download queue.
///
/// Asynchronous: the transfer runs in a Swift task over the non-blocking HTTP client,
/// so no queue thread waits on the network. Transient failures (connection errors,
/// timeouts, 5xx, 429) are retried per `RetryPolicy` with exponential back-off and
/// jitter, each retry journaled `entry.retrying`; a 4xx is final. `cancel()` cancels
/// the task, which aborts the HTTP request or the back-off sleep at once.
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    enum Outcome: Sendable, Equatable {
        case downloaded(bytes: Int)
        case failed(EntryProblem)
        case cancelled
    }

    let job: EntryJob
    private let downloader: any Downloader
    private let policy: RetryPolicy
    private let maxBytes: Int
    private let journal: Journal
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var result: Outcome?

    init(job: EntryJob, downloader: any Downloader, policy: RetryPolicy, maxBytes: Int, journal: Journal) {
        self.job = job
        self.downloader = downloader
        self.policy = policy
        self.maxBytes = maxBytes
        self.journal = journal
        super.init()
        queuePriority = job.priority.queuePriority
        name = "download \(job.key)"
    }

    /// Set before the operation finishes; nil if it never ran.
    var outcome: Outcome? { lock.withLock { result } }

    override func cancelledBeforeStart() {
        lock.withLock { result = .cancelled }
    }

    override func execute() {
        let task = Task { [self] in
            let outcome = await transfer()
            lock.withLock { result = outcome }
            finish()
        }
        lock.withLock { self.task = task }
        if isCancelled { task.cancel() }
    }

    override func cancel() {
        super.cancel()
        lock.withLock { task }?.cancel()
    }

    private func transfer() async -> Outcome {
        let key = job.key
        var generator = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            if Task.isCancelled { return .cancelled }
            journal.record(
                .entryDownloading, manifest: key.manifest, entry: key.entry,
                [JournalField("url", .string(job.url.absoluteString)), JournalField("attempt", .int(attempt))])
            let started = DispatchTime.now()
            do {
                let response = try await downloader.download(
                    DownloadRequest(url: job.url, destination: job.downloadPath, maxBytes: maxBytes))
                journal.record(
                    .entryDownloaded, manifest: key.manifest, entry: key.entry,
                    [JournalField("bytes", .int(response.bytes)), JournalField("ms", .int(started.millisecondsElapsed))])
                return .downloaded(bytes: response.bytes)
            } catch is CancellationError {
                return .cancelled
            } catch let failure as DownloadFailure {
                guard policy.shouldRetry(after: failure, attempt: attempt) else {
                    return .failed(EntryProblem(code: failure.code, message: failure.message))
                }
                var retryAfter: Double?
                if case .http(_, _, let seconds) = failure { retryAfter = seconds }
                let delay = policy.delay(beforeAttempt: attempt + 1, retryAfter: retryAfter, using: &generator)
                attempt += 1
                journal.record(
                    .entryRetrying, manifest: key.manifest, entry: key.entry,
                    [
                        JournalField("attempt", .int(attempt)), JournalField("error", .string(failure.description)),
                        JournalField("delay_ms", .int(Int(delay * 1000))),
                    ])
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                } catch {
                    return .cancelled
                }
            } catch let failure as DownloadWriteError {
                return .failed(EntryProblem(code: "write", message: "\(failure)"))
            } catch {
                if Task.isCancelled { return .cancelled }
                return .failed(EntryProblem(code: "internal", message: "\(error)"))
            }
        }
    }
}

extension DispatchTime {
    var millisecondsElapsed: Int {
        Int((DispatchTime.now().uptimeNanoseconds - uptimeNanoseconds) / 1_000_000)
    }
}
