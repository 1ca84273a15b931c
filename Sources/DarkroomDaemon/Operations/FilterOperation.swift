import DarkroomCore
import DarkroomImaging
import DarkroomStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Develops one downloaded entry into the outbox, on the filter queue.
///
/// It depends on the entry's `DownloadOperation` and checks its outcome first: on
/// Linux a dependent starts even when its dependency was cancelled or failed. The
/// work runs synchronously on the queue's thread (it is CPU-bound), checking
/// `isCancelled` between bands of rows; the output is written atomically and durably.
/// Every path through the operation reports exactly one outcome, before finishing,
/// and removes the downloaded file.
final class FilterOperation: AsyncOperation, @unchecked Sendable {
    let job: EntryJob
    let download: DownloadOperation
    private let outbox: Outbox
    private let limits: DecodingLimits
    private let exact: Bool
    private let journal: Journal
    private let report: @Sendable (EntryJob, EntryOutcome) -> Void

    init(
        job: EntryJob, download: DownloadOperation, outbox: Outbox, limits: DecodingLimits, exact: Bool = false,
        journal: Journal, report: @escaping @Sendable (EntryJob, EntryOutcome) -> Void
    ) {
        self.job = job
        self.download = download
        self.outbox = outbox
        self.limits = limits
        self.exact = exact
        self.journal = journal
        self.report = report
        super.init()
        queuePriority = job.priority.queuePriority
        name = "filter \(job.key)"
        depend(on: download)
    }

    override func cancelledBeforeStart() {
        unlink(job.downloadPath)
        report(job, .cancelled)
    }

    override func execute() {
        defer {
            unlink(job.downloadPath)
            finish()
        }
        report(job, develop())
    }

    private func develop() -> EntryOutcome {
        switch download.outcome {
        case nil, .cancelled?: return .cancelled
        case .failed(let problem)?: return .failed(problem)
        case .downloaded?: break
        }
        if isCancelled { return .cancelled }
        journal.record(.entryFiltering, manifest: job.key.manifest, entry: job.key.entry)
        let started = DispatchTime.now()
        do {
            let developer = try PhotoDeveloper(
                input: ByteStream.reading(path: job.downloadPath),
                settings: DevelopSettings(
                    intensity: job.settings.intensity, format: job.settings.format,
                    encoding: EncodingOptions(quality: job.settings.quality), limits: limits, exact: exact))
            let output = "\(job.baseName).\(developer.outputFormat.fileExtension)"
            let provenance = Outbox.provenance(url: job.url.absoluteString, settings: job.settings.fingerprint)
            try AtomicFile.write(
                to: outbox.outputPath(manifest: job.key.manifest, file: output), durable: true,
                attributes: [Outbox.provenanceAttribute: provenance]
            ) { fd in
                try developer.run(to: ByteStream.writing(fileDescriptor: fd)) { [self] in isCancelled }
            }
            if let previous = job.previousOutput, previous != output {
                unlink(outbox.outputPath(manifest: job.key.manifest, file: previous))
            }
            return .filtered(
                output: output, width: developer.decoder.width, height: developer.decoder.height,
                milliseconds: started.millisecondsElapsed)
        } catch is CancellationError {
            return .cancelled
        } catch let error as ImagingError {
            return .failed(EntryProblem(code: error.code.rawValue, message: error.message))
        } catch let error as StorageError {
            return .failed(EntryProblem(code: "write", message: error.description))
        } catch {
            return .failed(EntryProblem(code: "internal", message: "\(error)"))
        }
    }
}

/// Finishes a manifest once every admitted entry of it has reported: `result.plist`
/// and `manifest.finished`. It depends on the manifest's filter operations in flight
/// when its last entry was admitted (entries report before their operation finishes,
/// so every result is in by the time this runs).
final class ManifestCompletionOperation: AsyncOperation, @unchecked Sendable {
    let manifest: String
    private let complete: @Sendable (String) -> Void

    init(manifest: String, complete: @escaping @Sendable (String) -> Void) {
        self.manifest = manifest
        self.complete = complete
        super.init()
        name = "complete \(manifest)"
    }

    override func execute() {
        complete(manifest)
        finish()
    }
}
