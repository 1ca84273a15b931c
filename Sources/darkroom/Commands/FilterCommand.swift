import ArgumentParser
import DarkroomImaging
import DarkroomStorage
import DarkroomSystem
import Dispatch
import Foundation

extension OutputFormat: ExpressibleByArgument {}

/// `darkroom filter`: the one-shot develop of local files (SPEC §1).
struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Apply the sepia filter to local JPEG or PNG files.",
        discussion: """
            darkroom filter IN OUT          one file; OUT's extension (.jpg, .jpeg, .png) picks the format
            darkroom filter IN... --output-dir DIR
                                            several files in parallel; each output is DIR/<input name>.<ext>

            Outputs appear atomically (temporary file in the same folder, then rename).
            A failing input prints 'name: code: message' on stderr and the others are still
            written. Exit status: 0 all written, 1 some failed, 2 bad command line.
            """
    )

    @Argument(help: "Input images, then the output file when --output-dir is not given.")
    var paths: [String]

    @Option(name: .customLong("output-dir"), help: "Write every output into this folder (created if missing).")
    var outputDir: String?

    @Option(help: "Sepia amount, 0 (none) to 1 (full).")
    var intensity: Double = 0.8

    @Option(help: "JPEG quality, 1 to 100.")
    var quality: Int = 90

    @Option(help: "Output format: jpeg, png or source (same as the input). Default: OUT's extension, or source with --output-dir.")
    var format: OutputFormat?

    @Option(name: .customLong("max-pixels"), help: "Refuse images with more pixels than this.")
    var maxPixels: UInt64 = 100_000_000

    @Option(help: "Images developed at once with --output-dir (default: number of CPU cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(
        help: """
            Decode to RGB, filter, encode from RGB even JPEG → JPEG, where the default filters the \
            decoded YCbCr planes (faster; within 45 dB PSNR of this path, see docs/fast-path.md).
            """)
    var exact = false

    @Flag(help: "Print one line per developed image.")
    var verbose = false

    func validate() throws {
        guard (0...1).contains(intensity) else { throw ValidationError("--intensity must be between 0 and 1") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if outputDir == nil {
            guard paths.count == 2 else {
                throw ValidationError("give IN OUT, or IN... --output-dir DIR")
            }
            if format == nil, ImageFormat(fileExtension: (paths[1] as NSString).pathExtension) == nil {
                throw ValidationError("cannot tell the format of '\(paths[1])': name it .jpg or .png, or give --format")
            }
        } else if paths.isEmpty {
            throw ValidationError("no input images")
        }
    }

    func run() throws {
        let jobs = try plan()
        Heap.keepFreedMemory()
        let failures = FailureCounter()
        let workers = min(self.jobs, jobs.count)
        let next = WorkCursor()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let job = next.take(from: jobs) {
                do {
                    let started = DispatchTime.now()
                    let result = try develop(job)
                    if verbose {
                        let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
                        print("\(job.input) → \(result.path) (\(result.width)×\(result.height), \(String(format: "%.0f", ms)) ms)")
                    }
                } catch {
                    failures.add()
                    FileHandle.standardError.write(Data("\((job.input as NSString).lastPathComponent): \(Self.describe(error))\n".utf8))
                }
            }
        }
        if failures.count > 0 { throw ExitCode(1) }
    }

    struct Job: Sendable {
        var input: String
        /// The output path, or the folder plus base name when the extension comes from the input's format.
        var output: Output
        enum Output: Sendable {
            case file(String)
            case inFolder(folder: String, baseName: String)
        }
    }

    private func plan() throws -> [Job] {
        guard let outputDir else { return [Job(input: paths[0], output: .file(paths[1]))] }
        do {
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create --output-dir '\(outputDir)': \(error.localizedDescription)")
        }
        var seen: [String: String] = [:]
        return try paths.map { input in
            let baseName = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            // With an explicit format the final names are known now; catch two inputs writing one file.
            if let format, format != .source {
                let name = "\(baseName).\(format.resolved(input: .jpeg).fileExtension)"
                if let other = seen.updateValue(input, forKey: name) {
                    throw ValidationError("'\(other)' and '\(input)' would both be written to \(name)")
                }
            }
            return Job(input: input, output: .inFolder(folder: outputDir, baseName: baseName))
        }
    }

    private func settings(for job: Job) -> DevelopSettings {
        var outputFormat = format ?? .source
        if case .file(let path) = job.output, format == nil,
            let byName = ImageFormat(fileExtension: (path as NSString).pathExtension)
        {
            outputFormat = byName == .jpeg ? .jpeg : .png
        }
        return DevelopSettings(
            intensity: intensity, format: outputFormat, encoding: EncodingOptions(quality: quality),
            limits: DecodingLimits(maxPixels: maxPixels), exact: exact)
    }

    private func develop(_ job: Job) throws -> (path: String, width: Int, height: Int) {
        let input: ByteStream
        do {
            input = try ByteStream.reading(path: job.input)
        } catch {
            throw CommandFailure(code: "read", message: "cannot open: \(error.localizedDescription)")
        }
        let developer = try PhotoDeveloper(input: input, settings: settings(for: job))
        let path: String
        switch job.output {
        case .file(let file): path = file
        case .inFolder(let folder, let baseName): path = "\(folder)/\(baseName).\(developer.outputFormat.fileExtension)"
        }
        // Like cp or convert, the one-shot command does not fsync; the daemon's outbox does.
        try AtomicFile.write(to: path, durable: false) { fd in
            try developer.run(to: ByteStream.writing(fileDescriptor: fd))
        }
        return (path, developer.decoder.width, developer.decoder.height)
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case let error as ImagingError: return error.description
        case let error as StorageError: return "write: \(error.description)"
        case let error as CommandFailure: return "\(error.code): \(error.message)"
        default: return "internal: \(error)"
        }
    }
}

struct CommandFailure: Error {
    var code: String
    var message: String
}

/// hands out the next job to whichever worker asks first.
final class WorkCursor: @unchecked Sendable {
    private let lock = NSLock()
    private var index = 0

    func take<T>(from jobs: [T]) -> T? {
        lock.lock()
        defer { lock.unlock() }
        guard index < jobs.count else { return nil }
        defer { index += 1 }
        return jobs[index]
    }
}

final class FailureCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
