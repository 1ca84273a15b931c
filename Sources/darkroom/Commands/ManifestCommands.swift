import ArgumentParser
import DarkroomCore
import DarkroomStorage
import Foundation

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
        guard let handle = FileHandle(forReadingAtPath: path) else {
            rejection = "cannot read it"
            return
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: options.maxBytes + 1)) ?? Data()
        do {
            manifest = try ManifestParser.parse(data, name: name, options: options)
        } catch {
            rejection = error.message
        }
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
            print(check.summary)
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
            guard check.manifest != nil, let data = FileManager.default.contents(atPath: path) else {
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
