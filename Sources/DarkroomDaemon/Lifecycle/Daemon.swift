import DarkroomCore
import DarkroomImaging
import DarkroomNetwork
import DarkroomStorage
import DarkroomSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `darkroom run`: watches the inbox, claims manifests, feeds the pipeline, resumes
/// after any stop, and stops cleanly on SIGTERM/SIGINT (SPEC §1–§5, §7).
///
/// Threading: inbox events, timers and signals are handled on one serial `control`
/// queue; the pipeline's operations run on their own queues.
public final class Daemon: @unchecked Sendable {
    public let configuration: DaemonConfiguration
    public let inbox: Inbox
    public let outbox: Outbox
    private let control = DispatchQueue(label: "darkroom.control")
    private let downloader: any Downloader
    private let shutdownDownloader: @Sendable () async -> Void
    private let journalObserver: (@Sendable (JournalRecord) -> Void)?
    private let notifier: SystemdNotifier?
    private var service: ServiceManager!
    /// Written on the control queue, read by the status probe from any thread.
    private var paused = false
    private var isPaused: Bool {
        get { stateLock.withLock { paused } }
        set { stateLock.withLock { paused = newValue } }
    }

    private var journal: Journal!
    private var pipeline: Pipeline!
    private var watcher: DirectoryWatcher?
    private var signals: SignalWatcher?
    private var rescanTimer: DispatchSourceTimer?
    private var stopping = false
    private var inboxMayHaveMore = true
    private var stopped: CheckedContinuation<Void, Never>?
    private var hasStopped = false
    private let stateLock = NSLock()

    /// Called on the control queue once the inbox is watched and resumed work is queued.
    public var onReady: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - downloader: where bytes come from; by default HTTP(S) over AsyncHTTPClient and,
    ///     with `allowFileURLs`, `file://`.
    ///   - journalObserver: sees every journal record (tests).
    ///   - notifier: systemd's notification socket, when run by systemd with `Type=notify`.
    public init(
        configuration: DaemonConfiguration, downloader: (any Downloader)? = nil,
        journalObserver: (@Sendable (JournalRecord) -> Void)? = nil, notifier: SystemdNotifier? = nil
    ) {
        self.configuration = configuration
        self.notifier = notifier
        self.inbox = Inbox(folder: configuration.inbox)
        self.outbox = Outbox(folder: configuration.outbox)
        self.journalObserver = journalObserver
        control.setSpecific(key: Self.controlKey, value: true)
        if let downloader {
            self.downloader = downloader
            self.shutdownDownloader = {}
        } else {
            let http = HTTPDownloader(
                configuration: HTTPDownloader.Configuration(
                    connectTimeout: configuration.connectTimeout, readTimeout: configuration.timeout,
                    maxConnectionsPerHost: max(64, configuration.downloadConcurrency),
                    addressPolicy: AddressPolicy(denyPrivateNetworks: configuration.denyPrivateNetworks)))
            self.downloader = SchemeRouter(http: http, file: configuration.allowFileURLs ? FileDownloader() : nil)
            self.shutdownDownloader = { try? await http.shutdown() }
        }
    }

    /// Runs until SIGTERM or SIGINT (or `stop()`), then returns after a clean stop.
    public func run() async throws {
        try start()
        await withCheckedContinuation { continuation in
            let resumeNow: Bool = stateLock.withLock {
                if hasStopped { return true }
                stopped = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        await shutdownDownloader()
    }

    /// Prepares the folders, opens the journal, resumes unfinished claims, starts watching.
    ///
    /// Everything happens on the control queue, signal watching first: a signal that
    /// arrives during start-up (logrotate's SIGHUP, an early SIGTERM) waits on the queue
    /// until the daemon can act on it, instead of killing the process by its default action.
    public func start() throws {
        try control.sync {
            signals = SignalWatcher(signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2], queue: control) {
                [weak self] signal in self?.handle(signal: signal)
            }
            do {
                try startOnControl()
            } catch {
                signals?.cancel()
                signals = nil
                throw error
            }
        }
    }

    private func startOnControl() throws {
        try inbox.prepare()
        try outbox.prepare()
        let writer = try JournalWriter(path: configuration.journalPath)
        service = ServiceManager(notifier: notifier, control: control) { [weak self] in self?.statusLine ?? "" }
        let observer = journalObserver
        journal = Journal(writer: writer, host: inbox.host, pid: getpid()) { [weak self] record in
            observer?(record)
            if let self, self.service.markChanged() { self.control.async { self.service.changed() } }
        }
        pipeline = Pipeline(configuration: configuration, journal: journal, outbox: outbox, downloader: downloader)
        pipeline.onCapacity = { [weak self] in self?.capacityFreed() }
        journal.record(
            .daemonStarted,
            [
                JournalField("inbox", .string(configuration.inbox)), JournalField("outbox", .string(configuration.outbox)),
                JournalField("download_concurrency", .int(configuration.downloadConcurrency)),
                JournalField("filter_concurrency", .int(configuration.filterConcurrency)),
            ])
        resumeOrphans()
        watcher = try DirectoryWatcher(path: configuration.inbox, queue: control) { [weak self] name in
            self?.inboxChanged(name)
        }
        let timer = DispatchSource.makeTimerSource(queue: control)
        let interval = max(configuration.rescanInterval, 0.1)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(interval * 100)))
        timer.setEventHandler { [weak self] in self?.scanInbox(settleTime: 1) }
        timer.resume()
        rescanTimer = timer
        scanInbox(settleTime: 0)
        service.ready()
        Log.notice("watching \(configuration.inbox), developing into \(configuration.outbox)")
        onReady?()
    }

    // MARK: Inbox

    private func inboxChanged(_ name: String?) {
        guard !stopping else { return }
        guard let name else { return scanInbox(settleTime: 0) }
        if name.hasSuffix(".cancel"), !name.hasPrefix(".") {
            handleCancel(String(name.dropLast(".cancel".count)))
        } else if ManifestParser.manifestName(fileName: name) != nil {
            inboxMayHaveMore = true
            if pipeline.wantsMoreWork { claim(fileName: name) }
        }
    }

    private func capacityFreed() {
        control.async { [self] in
            if inboxMayHaveMore && !stopping { scanInbox(settleTime: 0.5) }
        }
    }

    /// Looks at the whole inbox: acts on cancel requests, claims manifests while the
    /// pipeline wants work. `settleTime` leaves files written in the last moments alone.
    private func scanInbox(settleTime: Double) {
        guard !stopping else { return }
        let listing = inbox.scan(settleTime: settleTime)
        for name in listing.cancels { handleCancel(name) }
        inboxMayHaveMore = listing.unsettled > 0
        if listing.unsettled > 0 {
            // Files too fresh to trust (a writer may still be at it): look again once settled.
            control.asyncAfter(deadline: .now() + settleTime) { [weak self] in self?.scanInbox(settleTime: settleTime) }
        }
        for fileName in listing.manifests {
            guard !stopping else { return }
            guard pipeline.wantsMoreWork else {
                inboxMayHaveMore = true
                return
            }
            claim(fileName: fileName)
        }
    }

    private func claim(fileName: String) {
        switch inbox.claim(fileName: fileName) {
        case .claimed(let claim):
            take(claim, previous: [:], resumed: false)
        case .lost:
            break
        case .busy:
            inboxMayHaveMore = true
        case .refused(let reason):
            let name = ManifestParser.manifestName(fileName: fileName) ?? fileName
            reject(path: "\(inbox.folder)/\(fileName)", name: name, reason: reason)
        }
    }

    private func handleCancel(_ name: String) {
        if pipeline.cancel(manifest: name) {
            inbox.removeCancelRequest(name: name)
        } else if inbox.isWaiting(name: name), case .claimed(let claim) = inbox.claim(fileName: "\(name).plist") {
            take(claim, previous: [:], resumed: false)
            pipeline.cancel(manifest: name)
            inbox.removeCancelRequest(name: name)
        }
        // Otherwise another daemon may own the manifest: its owner consumes the request.
    }

    private func reject(path: String, name: String, reason: String) {
        do {
            try inbox.reject(path: path, name: name, reason: reason)
        } catch {
            Log.error("\(name): cannot move the rejected manifest aside: \(error)")
        }
        journal.record(.manifestRejected, manifest: name, [JournalField("error", .string(reason))])
    }

    // MARK: Manifests

    /// Resumes claims of this host whose daemon died: what the journal says was
    /// completed (and is still on disk) is skipped, the rest is redone.
    private func resumeOrphans() {
        let orphans = inbox.adoptOrphans()
        guard !orphans.isEmpty else { return }
        var replay = JournalReplay(onlyManifests: Set(orphans.map(\.name)))
        do {
            try JournalReader(path: configuration.journalPath).forEach { replay.apply($0) }
        } catch {
            Log.warning("cannot read the journal to resume: \(error); unfinished entries will be redone")
        }
        for claim in orphans {
            let entries = replay.manifests[claim.name]?.entries ?? [:]
            take(claim, previous: entries.compactMapValues(\.completed), resumed: true)
        }
    }

    /// Processes a claimed manifest. The parsed property list of a large manifest is
    /// several times its file size and glibc keeps the freed pages, so they are handed
    /// back once it is gone (at the end of ``process(_:previous:resumed:)``).
    private func take(_ claim: ClaimedManifest, previous: [String: CompletedOutput], resumed: Bool) {
        let entries = process(claim, previous: previous, resumed: resumed)
        if entries >= 1000 { Heap.releaseFreedMemory() }
    }

    /// Returns the number of entries of the manifest (0 when it was rejected).
    @discardableResult
    private func process(_ claim: ClaimedManifest, previous replayed: [String: CompletedOutput], resumed: Bool) -> Int {
        let name = claim.name
        let manifest: Manifest
        do {
            guard !Outbox.reservedNames.contains(name) else {
                throw ManifestRejection(message: "'\(name)' is a name the outbox uses itself")
            }
            let options = configuration.manifestOptions
            manifest = try ManifestParser.parse(claim.read(limit: options.maxBytes), name: name, options: options)
        } catch {
            let reason = (error as? ManifestRejection)?.message ?? "\(error)"
            reject(path: claim.path, name: name, reason: reason)
            claim.release()
            return 0
        }
        do {
            let removed = try outbox.prepareManifestFolder(name)
            if removed > 0 { Log.info("\(name): removed \(removed) temporary files of an interrupted run") }
        } catch {
            // The outbox is not writable: keep the claim for a later start, say why.
            Log.error("\(name): \(error)")
            claim.release()
            return 0
        }
        var previous: [String: CompletedOutput] = [:]
        if let last = outbox.lastResult(name) {
            for (entry, result) in last.entries where result.state == .filtered || result.state == .skipped {
                if let output = result.output, let settings = result.settings {
                    previous[entry] = CompletedOutput(url: result.url, settings: settings, output: output)
                }
            }
        }
        previous.merge(replayed) { _, journal in journal }
        // One listing, so that an entry with no file in the folder (every entry of a new
        // manifest) costs no system call below.
        let present = outbox.fileNames(manifest: name)

        journal.record(
            .manifestClaimed, manifest: name,
            [
                JournalField("priority", .string(manifest.priority.rawValue)),
                JournalField("entries", .int(manifest.entries.count)), JournalField("resumed", .bool(resumed)),
            ])
        var jobs: [EntryJob] = []
        var settled: [String: EntryResult] = [:]
        var seen = Set<String>()
        for entry in manifest.entries {
            let isFirst = seen.insert(entry.name).inserted
            if let problem = entry.problem {
                journal.record(
                    .entryFailed, manifest: name, entry: entry.name,
                    [JournalField("url", .string(entry.url)), JournalField("error", .string(problem.description))])
                if isFirst {
                    settled[entry.name] = EntryResult(
                        state: .failed, url: entry.url, output: nil, error: problem.description, settings: nil)
                }
                continue
            }
            guard let url = URL(string: entry.url) else { continue }
            let fingerprint = entry.settings.fingerprint
            let baseName = PhotoFileName.baseName(for: entry.name)
            let earlier = previous[entry.name].flatMap { present.contains($0.output) ? $0 : nil }
            if let output = currentOutput(
                of: entry, fingerprint: fingerprint, baseName: baseName, earlier: earlier, manifest: name, present: present)
            {
                settled[entry.name] = EntryResult(
                    state: .skipped, url: entry.url, output: output, error: nil, settings: fingerprint)
                journal.record(
                    .entrySkipped, manifest: name, entry: entry.name,
                    [
                        JournalField("url", .string(entry.url)), JournalField("settings", .string(fingerprint)),
                        JournalField("output", .string(output)),
                    ])
                continue
            }
            journal.record(
                .entryQueued, manifest: name, entry: entry.name,
                [
                    JournalField("url", .string(entry.url)), JournalField("priority", .string(entry.priority.rawValue)),
                    JournalField("settings", .string(fingerprint)),
                ])
            jobs.append(
                EntryJob(
                    key: EntryKey(manifest: name, entry: entry.name), url: url, priority: entry.priority,
                    settings: entry.settings, baseName: baseName,
                    downloadPath: outbox.downloadPath(manifest: name, index: entry.index),
                    previousOutput: earlier?.output))
        }
        pipeline.submit(manifest: name, claim: claim, jobs: jobs, settled: settled)
        return manifest.entries.count
    }

    /// The file name of `entry`'s output if it is complete and was made from the entry's
    /// URL and settings: known from the journal or the last result (`earlier`), or else
    /// proved by the output's provenance attribute, for a kill that fell between the
    /// output's rename and its journal line. `present`: the files in the manifest's folder.
    private func currentOutput(
        of entry: ManifestEntry, fingerprint: String, baseName: String, earlier: CompletedOutput?, manifest: String,
        present: Set<String>
    ) -> String? {
        if let earlier, earlier.url == entry.url, earlier.settings == fingerprint { return earlier.output }
        let candidates = ImageFormat.allCases.map { "\(baseName).\($0.fileExtension)" }.filter(present.contains)
        guard !candidates.isEmpty else { return nil }
        return outbox.completedOutput(manifest: manifest, candidates: candidates, url: entry.url, settings: fingerprint)
    }

    // MARK: Signals and stopping

    private func handle(signal: Int32) {
        switch signal {
        case SIGTERM, SIGINT:
            stop()
        case SIGHUP:
            do { try journal.writer.reopen() } catch { Log.error("cannot reopen the journal: \(error)") }
            scanInbox(settleTime: 0)
        case SIGUSR1:
            setPaused(true)
        case SIGUSR2:
            setPaused(false)
        default:
            break
        }
    }

    /// Suspends (SIGUSR1) or resumes (SIGUSR2) the queues: running operations finish,
    /// none starts while paused. Claims go on, bounded as always.
    public func setPaused(_ paused: Bool) {
        // Journaled on the side where no operation can start in between: after suspending,
        // before resuming.
        if paused {
            pipeline.setSuspended(true)
            isPaused = true
            journal.record(.daemonPaused)
        } else {
            isPaused = false
            journal.record(.daemonResumed)
            pipeline.setSuspended(false)
        }
    }

    /// Stops claiming, cancels every operation, journals the interrupted entries and
    /// `daemon.stopped`, and lets `run()` return. Safe to call from any thread, once or more.
    public func stop() {
        if DispatchQueue.getSpecific(key: Self.controlKey) != nil { return stopOnControl() }
        control.async { [self] in stopOnControl() }
    }

    private static let controlKey = DispatchSpecificKey<Bool>()

    private func stopOnControl() {
        guard !stopping else { return }
        stopping = true
        service?.stopping()
        watcher?.cancel()
        rescanTimer?.cancel()
        journal.record(.daemonStopping)
        let unfinished = pipeline.shutdown(deadline: Date().addingTimeInterval(0.8))
        journal.record(.daemonStopped, [JournalField("unfinished", .int(unfinished))])
        journal.sync()
        signals?.cancel()
        let continuation: CheckedContinuation<Void, Never>? = stateLock.withLock {
            hasStopped = true
            defer { stopped = nil }
            return stopped
        }
        continuation?.resume()
    }

    // MARK: Status

    /// Live counts, for `STATUS=` lines and tests.
    public struct Status: Sendable, Equatable {
        public var manifests: Int
        public var waiting: Int
        public var inFlight: Int
        public var filtered: Int
        public var failed: Int
        public var skipped: Int
        public var cancelled: Int
    }

    /// The `STATUS=` line: `2 manifests · 120 filtered · 3 skipped · 2 failed · 12 in flight · 480 waiting`.
    var statusLine: String {
        let status = status
        var line = "\(status.manifests) manifest\(status.manifests == 1 ? "" : "s") · \(status.filtered) filtered"
        if status.skipped > 0 { line += " · \(status.skipped) skipped" }
        line += " · \(status.failed) failed · \(status.inFlight) in flight · \(status.waiting) waiting"
        if status.cancelled > 0 { line += " · \(status.cancelled) cancelled" }
        if isPaused { line += " · paused" }
        return line
    }

    public var status: Status {
        let snapshot = pipeline.snapshot
        return Status(
            manifests: snapshot.manifests, waiting: snapshot.waiting, inFlight: snapshot.inFlight,
            filtered: snapshot.counters.filtered, failed: snapshot.counters.failed,
            skipped: snapshot.counters.skipped, cancelled: snapshot.counters.cancelled)
    }
}
