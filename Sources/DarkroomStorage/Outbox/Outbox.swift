import DarkroomCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The outbox layout of SPEC §3: `journal.jsonl` and one folder per manifest holding the
/// developed images and `result.plist`.
public struct Outbox: Sendable {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    public var defaultJournalPath: String { "\(folder)/journal.jsonl" }

    /// Names a manifest may not have, because the outbox uses them itself.
    public static let reservedNames: Set<String> = ["journal.jsonl", "rejected"]

    public func prepare() throws {
        try POSIX.makeDirectories(folder)
    }

    public func manifestFolder(_ manifest: String) -> String { "\(folder)/\(manifest)" }

    public func resultPath(_ manifest: String) -> String { "\(manifestFolder(manifest))/result.plist" }

    public func outputPath(manifest: String, file: String) -> String { "\(manifestFolder(manifest))/\(file)" }

    /// Creates the manifest's folder and removes temporary files left by an interrupted
    /// run (partial downloads and outputs never renamed into place).
    @discardableResult
    public func prepareManifestFolder(_ manifest: String) throws -> Int {
        let path = manifestFolder(manifest)
        try POSIX.makeDirectories(path)
        var removed = 0
        for name in POSIX.listFolder(path) where AtomicFile.isTemporary(name) {
            if unlink("\(path)/\(name)") == 0 { removed += 1 }
        }
        return removed
    }

    /// The regular files in the manifest's folder, temporaries left out (an output
    /// appears only by an atomic rename, so each one listed is complete).
    public func fileNames(manifest: String) -> Set<String> {
        let path = manifestFolder(manifest)
        return Set(POSIX.listFolder(path).filter { name in
            var info = stat()
            return !AtomicFile.isTemporary(name) && lstat("\(path)/\(name)", &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        })
    }

    /// Whether a developed image is in place (outputs appear only by an atomic rename,
    /// so an existing file is a complete one).
    public func outputExists(manifest: String, file: String) -> Bool {
        var info = stat()
        return lstat(outputPath(manifest: manifest, file: file), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The extended attribute that says what an output was made from (see ``provenance(url:settings:)``).
    public static let provenanceAttribute = "user.darkroom.source"

    /// The value of ``provenanceAttribute``: the URL text and the settings fingerprint.
    ///
    /// The output file carries it from the moment it appears (it is set before the
    /// rename). A daemon killed after the rename but before the journal line has no
    /// record of the entry; on resume the attribute proves the output complete and
    /// current, so it is not made again (SPEC §4: never redo a complete entry).
    public static func provenance(url: String, settings: String) -> [UInt8] {
        Array("\(url)\n\(settings)".utf8)
    }

    /// The output among `candidates` (file names in the manifest's folder) whose
    /// provenance is `url` with `settings`, if one is.
    public func completedOutput(manifest: String, candidates: [String], url: String, settings: String) -> String? {
        let wanted = Self.provenance(url: url, settings: settings)
        return candidates.first { file in
            AtomicFile.attribute(Self.provenanceAttribute, of: outputPath(manifest: manifest, file: file), maxBytes: wanted.count + 1) == wanted
                && outputExists(manifest: manifest, file: file)
        }
    }

    /// The result of the manifest's last finished run, if any.
    public func lastResult(_ manifest: String) -> ManifestResult? {
        guard let data = FileManager.default.contents(atPath: resultPath(manifest)) else { return nil }
        return try? ManifestResult(propertyListData: data)
    }

    public func writeResult(_ result: ManifestResult) throws {
        try AtomicFile.write(result.propertyListBytes(), to: resultPath(result.manifest))
    }

    /// A path for the download of entry `index`, inside the manifest's folder so that
    /// it is cleaned with it; named like every temporary file.
    public func downloadPath(manifest: String, index: Int) -> String {
        "\(manifestFolder(manifest))/\(AtomicFile.temporaryPrefix)download-\(index)\(AtomicFile.temporarySuffix)"
    }

    /// Manifest folders present in the outbox.
    public func manifestNames() -> [String] {
        POSIX.listFolder(folder).filter { !$0.hasPrefix(".") && POSIX.isDirectory("\(folder)/\($0)") }.sorted()
    }
}
