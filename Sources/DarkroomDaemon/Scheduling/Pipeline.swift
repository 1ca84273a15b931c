import DarkroomCore
import DarkroomImaging
import DarkroomNetwork
import DarkroomStorage
import DarkroomSystem
import Foundation

/// The download → filter machinery: prioritised operation queues, the backlog that
/// feeds them, the registry of entries in flight, and the completion of manifests.
///
/// - A download queue (`downloadConcurrency` at once) and a filter queue
///   (`filterConcurrency`); each entry is a `DownloadOperation` and a
///   `FilterOperation` that depends on it, both at the entry's queue priority.
/// - At most `admissionWindow` entries are admitted at once; the rest wait in a
///   `PriorityBacklog` as plain values, so a 100,000-entry manifest costs a few MB, not
///   100,000 operations, requests or files. Admission takes the highest priority first,
///   so a high-priority manifest claimed later overtakes low-priority work not started.
/// - One `ManifestCompletionOperation` per manifest, created when its last entry is
///   admitted, depends on the manifest's operations still in flight.
///
/// Thread-safe: state is behind one lock; journal writes and queue calls happen outside it
/// where they can.
final class Pipeline: @unchecked Sendable {
    let configuration: DaemonConfiguration
    let journal: Journal
    let outbox: Outbox
    private let downloader: any Downloader
    private let registry = PendingOperations()

    let downloadQueue = OperationQueue()
    let filterQueue = OperationQueue()
    private let completionQueue = OperationQueue()

    private let lock = NSCondition()
    private var backlog = PriorityBacklog<EntryJob>()
    private var runs: [String: ManifestRun] = [:]
    private var admitted = 0
    private var stopping = false
    private var counters = Counters()

    /// Called (outside the lock, on an arbitrary thread) when the backlog runs low and
    /// the daemon may claim more work, and when a manifest finishes.
    var onCapacity: (@Sendable () -> Void)?

    struct Counters: Sendable, Equatable {
        var filtered = 0
        var failed = 0
        var skipped = 0
        var cancelled = 0
    }

    init(configuration: DaemonConfiguration, journal: Journal, outbox: Outbox, downloader: any Downloader) {
        self.configuration = configuration
        self.journal = journal
        self.outbox = outbox
        self.downloader = downloader
        downloadQueue.name = "darkroom.download"
        downloadQueue.maxConcurrentOperationCount = configuration.downloadConcurrency
        filterQueue.name = "darkroom.filter"
        filterQueue.maxConcurrentOperationCount = configuration.filterConcurrency
        completionQueue.name = "darkroom.completion"
        completionQueue.maxConcurrentOperationCount = 1
    }

    // MARK: Status

    struct Snapshot: Sendable, Equatable {
        var manifests: Int
        var waiting: Int
        var inFlight: Int
        var counters: Counters
    }

    var snapshot: Snapshot {
        lock.withLock { Snapshot(manifests: runs.count, waiting: backlog.count, inFlight: admitted, counters: counters) }
    }

    /// Names of manifests in progress.
    var manifestNames: Set<String> { lock.withLock { Set(runs.keys) } }

    /// Whether the daemon should claim another manifest: the backlog is short enough that
    /// the queues could run dry, or fewer than two manifests wait (so a new, perhaps
    /// higher-priority manifest is always looked at). SPEC §7: bounded work ahead.
    var wantsMoreWork: Bool {
        lock.withLock {
            guard !stopping else { return false }
            let manifestsWaiting = runs.values.filter { $0.waiting > 0 }.count
            return backlog.count < 2 * configuration.admissionWindow || manifestsWaiting < 2
        }
    }

    // MARK: Submitting

    /// Takes over a parsed manifest: `jobs` are queued, `settled` entries (failed on
    /// their own, or skipped) already have their result.
    func submit(manifest: String, claim: ClaimedManifest?, jobs: [EntryJob], settled: [String: EntryResult]) {
        let run = ManifestRun(name: manifest, claim: claim)
        run.results = settled
        run.waiting = jobs.count
        lock.withLock {
            for result in settled.values {
                if result.state == .skipped { counters.skipped += 1 } else if result.state == .failed { counters.failed += 1 }
            }
            runs[manifest] = run
            for job in jobs { backlog.push(job, priority: job.priority) }
        }
        if jobs.isEmpty { scheduleCompletion(of: run) }
        pump()
    }

    /// Admits entries from the backlog while the window has room.
    ///
    /// Several threads pump at once (every entry that finishes pumps). An entry is popped
    /// and entered in its manifest's `inFlight` in one critical section: otherwise the
    /// thread that pops a manifest's last entry could schedule the completion before
    /// another thread has registered an entry it popped just before, and the manifest
    /// would finish without it.
    private func pump() {
        while true {
            let next: (EntryOperations, ManifestRun, isLast: Bool)? = lock.withLock {
                guard !stopping, admitted < configuration.admissionWindow, let job = backlog.popHighest(),
                    let run = runs[job.key.manifest]
                else { return nil }
                let operations = makeOperations(for: job)
                admitted += 1
                run.waiting -= 1
                run.inFlight[job.key] = operations.filter
                return (operations, run, run.waiting == 0)
            }
            guard let (operations, run, isLast) = next else { break }
            enqueue(operations, of: run)
            if isLast { scheduleCompletion(of: run) }
        }
        if wantsMoreWork { onCapacity?() }
    }

    private func makeOperations(for job: EntryJob) -> EntryOperations {
        let download = DownloadOperation(
            job: job, downloader: downloader, policy: configuration.retryPolicy,
            maxBytes: configuration.maxDownloadBytes, journal: journal)
        let filter = FilterOperation(
            job: job, download: download, outbox: outbox, limits: DecodingLimits(maxPixels: configuration.maxPixels),
            exact: configuration.exact, journal: journal
        ) { [weak self] job, outcome in self?.entryFinished(job, outcome) }
        return EntryOperations(download: download, filter: filter)
    }

    private func enqueue(_ operations: EntryOperations, of run: ManifestRun) {
        let key = operations.filter.job.key
        guard registry.insert(key, operations) else {
            // Never queued twice: a duplicate admission (impossible by construction) is dropped.
            lock.withLock {
                admitted -= 1
                run.inFlight[key] = nil
            }
            return
        }
        filterQueue.addOperation(operations.filter)
        downloadQueue.addOperation(operations.download)
    }

    private func scheduleCompletion(of run: ManifestRun) {
        let dependencies: [FilterOperation]? = lock.withLock {
            guard !run.completionScheduled, !stopping else { return nil }
            run.completionScheduled = true
            return Array(run.inFlight.values)
        }
        guard let dependencies else { return }
        let completion = ManifestCompletionOperation(manifest: run.name) { [weak self] name in
            self?.completeManifest(name)
        }
        for operation in dependencies { completion.depend(on: operation) }
        completionQueue.addOperation(completion)
    }

    // MARK: Entries and manifests ending

    private func entryFinished(_ job: EntryJob, _ outcome: EntryOutcome) {
        let key = job.key
        let reason: CancelReason = lock.withLock { runs[key.manifest]?.isCancelled == true ? .manifestCancelled : .shutdown }
        var result = EntryResult(state: .failed, url: job.url.absoluteString, output: nil, error: nil, settings: nil)
        switch outcome {
        case .filtered(let output, let width, let height, let milliseconds):
            result.state = .filtered
            result.output = output
            result.settings = job.settings.fingerprint
            journal.record(
                .entryFiltered, manifest: key.manifest, entry: key.entry,
                [
                    JournalField("url", .string(result.url)), JournalField("settings", .string(job.settings.fingerprint)),
                    JournalField("output", .string(output)), JournalField("width", .int(width)),
                    JournalField("height", .int(height)), JournalField("ms", .int(milliseconds)),
                ])
        case .failed(let problem):
            result.error = problem.description
            journal.record(
                .entryFailed, manifest: key.manifest, entry: key.entry,
                [JournalField("url", .string(result.url)), JournalField("error", .string(problem.description))])
        case .cancelled:
            result.state = .cancelled
            journal.record(
                .entryCancelled, manifest: key.manifest, entry: key.entry, [JournalField("reason", .string(reason.rawValue))])
        }
        registry.remove(key)
        lock.withLock {
            admitted -= 1
            switch result.state {
            case .filtered: counters.filtered += 1
            case .failed: counters.failed += 1
            default: counters.cancelled += 1
            }
            if let run = runs[key.manifest] {
                run.inFlight[key] = nil
                // An entry interrupted by shutdown has no final state: it is redone on resume.
                if !(result.state == .cancelled && reason == .shutdown) { run.results[key.entry] = result }
            }
            lock.broadcast()
        }
        pump()
    }

    private func completeManifest(_ name: String) {
        let run: ManifestRun? = lock.withLock { stopping ? nil : runs[name] }
        guard let run else { return }
        let finished = ManifestResult(manifest: name, finished: Date(), entries: lock.withLock { run.results })
        do {
            try outbox.writeResult(finished)
        } catch {
            Log.error("\(name): cannot write result.plist: \(error)")
        }
        let counts = finished.counts
        journal.record(
            .manifestFinished, manifest: name,
            [
                JournalField(
                    "counts",
                    .object([
                        JournalField("filtered", .int(counts.filtered)), JournalField("failed", .int(counts.failed)),
                        JournalField("skipped", .int(counts.skipped)), JournalField("cancelled", .int(counts.cancelled)),
                    ]))
            ])
        run.claim?.finish()
        let idle = lock.withLock {
            _ = runs.removeValue(forKey: name)
            return runs.isEmpty
        }
        // The heap keeps freed memory for the next photograph (see Heap); once nothing is
        // in progress, and after any large manifest, it goes back to the kernel, so an
        // idle daemon is small.
        if idle || finished.entries.count >= 1000 { Heap.releaseFreedMemory() }
        onCapacity?()
    }

    // MARK: Control

    /// Cancels every operation of `manifest` that has not finished (SPEC §2, `NAME.cancel`).
    /// Returns false if the manifest is not in progress here.
    @discardableResult
    func cancel(manifest: String) -> Bool {
        let removed: [EntryJob]? = lock.withLock {
            guard let run = runs[manifest], !run.isCancelled else { return nil }
            run.isCancelled = true
            let removed = backlog.removeAll { $0.key.manifest == manifest }
            run.waiting -= removed.count
            for job in removed {
                run.results[job.key.entry] = EntryResult(
                    state: .cancelled, url: job.url.absoluteString, output: nil, error: nil, settings: nil)
                counters.cancelled += 1
            }
            return removed
        }
        guard let removed else { return false }
        journal.record(.manifestCancelled, manifest: manifest)
        for job in removed {
            journal.record(
                .entryCancelled, manifest: manifest, entry: job.key.entry,
                [JournalField("reason", .string(CancelReason.manifestCancelled.rawValue))])
        }
        for operations in registry.operations(ofManifest: manifest) {
            operations.download.cancel()
            operations.filter.cancel()
        }
        if let run = lock.withLock({ runs[manifest] }) { scheduleCompletion(of: run) }
        return true
    }

    /// Suspends (`true`) or resumes the queues. Running operations finish; none starts while suspended.
    func setSuspended(_ suspended: Bool) {
        downloadQueue.isSuspended = suspended
        filterQueue.isSuspended = suspended
    }

    /// Stops: no more admissions, every operation cancelled, running downloads aborted,
    /// filters stopped at their next check. Waits until every admitted entry has
    /// reported, or until `deadline`. Unfinished manifests keep their claim for resume.
    /// Returns the number of entries that had not reported by the deadline.
    @discardableResult
    func shutdown(deadline: Date) -> Int {
        let claims: [ClaimedManifest] = lock.withLock {
            stopping = true
            _ = backlog.removeAll { _ in true }
            return runs.values.compactMap(\.claim)
        }
        completionQueue.cancelAllOperations()
        downloadQueue.cancelAllOperations()
        filterQueue.cancelAllOperations()
        // Suspended queues would never start the cancelled operations that must report.
        setSuspended(false)
        let remaining: Int = lock.withLock {
            while admitted > 0 && lock.wait(until: deadline) {}
            return admitted
        }
        for claim in claims { claim.release() }
        return remaining
    }
}
