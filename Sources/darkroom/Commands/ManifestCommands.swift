import ArgumentParser
import DarkroomCore
import DarkroomStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads and checks one manifest file the way the daemon will.
struct ManifestCheck {
    var path: String
    var fileName: String { (path as NSString).lastPathComponent }
    var manifest: Manifest?
    var rejection: String?

    init(path: String, options: ManifestOptions) {
        self.path = path
        let fileName = (path as NSString).lastPathComponent
        guard let name = ManifestParser.manifestName(fileName: fileName) else {
            rejection = "the file name must end in .plist and not start with '.'"
            return
        }
        // The daemon rejects these names before reading the file (Daemon.process).
        guard !Outbox.reservedNames.contains(name) else {
            rejection = "'\(name)' is a name the outbox uses itself"
            return
        }
        let data: Data
        switch Self.contents(of: path, limit: options.maxBytes + 1) {
        case .success(let bytes): data = bytes
        case .failure(let reason):
            rejection = "cannot read it: \(reason)"
            return
        }
        do {
            manifest = try ManifestParser.parse(data, name: name, options: options)
            self.data = data
        } catch {
            rejection = error.message
        }
    }

    /// The bytes that were checked: what `submit` copies, so that it copies what it validated.
    private(set) var data: Data?

    /// Up to `limit` bytes of the file; a read error (a folder, no permission) is the
    /// system's sentence, never mistaken for an empty file.
    private static func contents(of path: String, limit: Int) -> Result<Data, SystemReason> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SystemReason(errno)) }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count < limit {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, min($0.count, limit - data.count)) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SystemReason(errno))
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return .success(data)
    }

    struct SystemReason: Error, CustomStringConvertible {
        var description: String
        init(_ code: Int32) { description = String(cString: strerror(code)) }
    }

    var problems: [String] {
        if let rejection { return ["\(fileName): rejected: \(rejection)"] }
        return manifest?.entries.compactMap { entry in
            entry.problem.map { "\(fileName): entry '\(entry.name)': \($0)" }
        } ?? []
    }

    var summary: String {
        guard let manifest else { return "\(fileName): rejected" }
        let bad = manifest.entries.filter { !$0.isValid }.count
        return "\(fileName): \(manifest.shape.rawValue), \(manifest.entries.count) entries, \(bad) with problems, priority \(manifest.priority.rawValue)"
    }
}

/// `darkroom validate`: every problem with its entry; exit 1 if any manifest has one.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check manifests: print every problem with its entry; exit 1 if there is any.")

    @Argument(help: "Manifest files (.plist).")
    var manifests: [String]

    @Flag(name: .customLong("allow-file-urls"), help: "Accept file:// URLs, as 'run --allow-file-urls' does.")
    var allowFileURLs = false

    func run() throws {
        var options = ManifestOptions()
        options.allowFileURLs = allowFileURLs
        var anyProblem = false
        for path in manifests {
            let check = ManifestCheck(path: path, options: options)
            let problems = check.problems
            anyProblem = anyProblem || !problems.isEmpty
            for problem in problems { print(problem) }
            // A rejected file's one line already says so.
            if check.manifest != nil { print(check.summary) }
        }
        if anyProblem { throw ExitCode(1) }
    }
}

/// `darkroom submit`: validate, then copy into the inbox under a temporary name, fsync, rename.
struct SubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Copy manifests into the inbox safely (temporary name, fsync, rename) after validating them.",
        discussion: """
            A manifest that cannot be read is not submitted (exit 1). Entries with problems are
            reported on stderr but the manifest is submitted: they fail on their own, the rest
            is developed.
            """)

    @Argument(help: "Manifest files (.plist).")
    var manifests: [String]

    @Option(help: "The daemon's inbox.")
    var inbox: String

    @Flag(name: .customLong("allow-file-urls"), help: "Accept file:// URLs, as 'run --allow-file-urls' does.")
    var allowFileURLs = false

    func run() throws {
        var options = ManifestOptions()
        options.allowFileURLs = allowFileURLs
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: inbox, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("the inbox '\(inbox)' is not a folder")
        }
        var failed = false
        for path in manifests {
            let check = ManifestCheck(path: path, options: options)
            for problem in check.problems { FileHandle.standardError.write(Data("\(problem)\n".utf8)) }
            guard check.manifest != nil, let data = check.data else {
                failed = true
                continue
            }
            do {
                try AtomicFile.write(Array(data), to: "\(inbox)/\(check.fileName)")
                print("submitted \(check.summary)")
            } catch {
                FileHandle.standardError.write(Data("\(check.fileName): \(error)\n".utf8))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
