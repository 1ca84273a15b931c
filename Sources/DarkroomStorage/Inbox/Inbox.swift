import CDarkroomSystem
import DarkroomCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The hot folder, and the Maildir-style claims that let several daemons share it.
///
/// Layout inside the inbox (all on the inbox's file system, so renames are atomic):
///
/// ```
/// inbox/
///   NAME.plist                 dropped by users, waiting
///   NAME.cancel                asks to cancel manifest NAME
///   rejected/NAME.plist        a manifest that could not be read, moved aside
///   rejected/NAME.reason.txt   why
///   .darkroom/claimed/HOST/NAME.plist   claimed by a daemon on HOST
/// ```
///
/// A claim is: open the manifest, take an exclusive `flock` on it, rename it into the
/// claim folder with `RENAME_NOREPLACE`. The rename is what makes a claim unique (two
/// daemons, even on two machines, cannot both rename one file); the lock, held for as
/// long as the daemon works on the manifest and dropped by the kernel when the process
/// dies, tells a daemon starting later on this host which claims are orphans.
///
/// Not thread-safe: the daemon calls it from one serial queue.
public struct Inbox: Sendable {
    public let folder: String
    public let host: String

    public var claimFolder: String { "\(folder)/.darkroom/claimed/\(host)" }
    public var rejectedFolder: String { "\(folder)/rejected" }

    public init(folder: String, host: String = currentHostName) {
        self.folder = folder
        self.host = host
    }

    /// Creates the inbox and its claim and rejected folders. The inbox is made
    /// group-writable (setgid, 2775) so that members of the daemon's group can drop files.
    public func prepare() throws {
        try Self.makeSharedFolder(folder)
        try POSIX.makeDirectories(claimFolder)
        try Self.makeSharedFolder(rejectedFolder)
    }

    /// mkdir -p (0775), then chmod 2775 if this call created the folder: mkdir(2) applies
    /// the umask and, on Linux, ignores the setgid bit. Under systemd's
    /// `RestrictSUIDSGID=yes` setting the setgid bit is refused (EPERM): the folder stays
    /// 0775, and a folder created inside a setgid inbox inherits the bit anyway. An existing
    /// folder keeps its mode.
    private static func makeSharedFolder(_ path: String) throws {
        let existed = POSIX.isDirectory(path)
        try POSIX.makeDirectories(path, mode: 0o775)
        guard !existed else { return }
        if chmod(path, 0o2775) != 0 {
            let code = errno
            guard code == EPERM, chmod(path, 0o775) == 0 else { throw StorageError("chmod", path: path, errno: code) }
        }
    }

    /// What a scan found: manifests waiting (oldest first) and cancel requests.
    public struct Listing: Sendable, Equatable {
        public var manifests: [String] = []
        public var cancels: [String] = []
        /// Manifests left out because they were modified within the settle time.
        public var unsettled = 0
    }

    /// Lists waiting manifests and `.cancel` files. Files modified less than
    /// `settleTime` seconds ago are left for the next look: a writer that does not use a
    /// temporary name may still be writing (inotify reports its close separately).
    public func scan(settleTime: Double = 0) -> Listing {
        var listing = Listing()
        var dated: [(String, Double)] = []
        let now = Date().timeIntervalSince1970
        for name in POSIX.listFolder(folder) {
            if name.hasSuffix(".cancel"), !name.hasPrefix(".") {
                listing.cancels.append(String(name.dropLast(".cancel".count)))
                continue
            }
            guard ManifestParser.manifestName(fileName: name) != nil else { continue }
            var info = stat()
            guard lstat("\(folder)/\(name)", &info) == 0 else { continue }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if settleTime > 0 && now - modified < settleTime {
                listing.unsettled += 1
                continue
            }
            dated.append((name, modified))
        }
        listing.manifests = dated.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        listing.cancels.sort()
        return listing
    }

    /// The outcome of trying to claim one file.
    public enum ClaimOutcome: Sendable {
        case claimed(ClaimedManifest)
        /// Another daemon was first, or the file went away: nothing to do.
        case lost
        /// A manifest of this name is still being worked on here: try again later.
        case busy
        /// Not a manifest we may read (a symbolic link, not a regular file...): move it aside.
        case refused(String)
    }

    /// Claims `fileName` (a name in the inbox, e.g. `photos.plist`).
    public func claim(fileName: String) -> ClaimOutcome {
        guard let name = ManifestParser.manifestName(fileName: fileName) else { return .refused("not a manifest name") }
        let source = "\(folder)/\(fileName)"
        // O_NOFOLLOW: a symbolic link in the inbox is never followed out of it.
        let fd = open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ENOENT: return .lost
            case ELOOP: return .refused("it is a symbolic link; manifests must be regular files")
            default: return .refused("cannot open it: \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .refused("it is not a regular file")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return .lost
        }
        let target = "\(claimFolder)/\(fileName)"
        if dr_rename_noreplace(source, target) != 0 {
            let code = errno
            close(fd)
            return code == EEXIST ? .busy : .lost
        }
        // The file may have been replaced between open and rename (a writer renaming a
        // new version over it): claim what was renamed, which is what we hold open.
        var renamed = stat()
        if stat(target, &renamed) != 0 || renamed.st_ino != info.st_ino || renamed.st_dev != info.st_dev {
            // We renamed a newer file than the one we locked: put it back for whoever wants it.
            _ = dr_rename_noreplace(target, source)
            close(fd)
            return .lost
        }
        return .claimed(ClaimedManifest(name: name, path: target, fd: fd))
    }

    /// Claims of this host whose daemon died (their lock is free): the daemon starting
    /// now takes them over. Claims held by a live daemon on this host are left alone.
    public func adoptOrphans() -> [ClaimedManifest] {
        var adopted: [ClaimedManifest] = []
        for fileName in POSIX.listFolder(claimFolder).sorted() {
            guard let name = ManifestParser.manifestName(fileName: fileName) else { continue }
            let path = "\(claimFolder)/\(fileName)"
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            // Adopt only the regular file still at that path once locked: a live daemon may
            // have finished it (and a new claim of the same name taken its place) meanwhile.
            var locked = stat(), named = stat()
            if flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &locked) == 0, (locked.st_mode & S_IFMT) == S_IFREG,
                stat(path, &named) == 0, named.st_ino == locked.st_ino, named.st_dev == locked.st_dev
            {
                adopted.append(ClaimedManifest(name: name, path: path, fd: fd))
            } else {
                close(fd)
            }
        }
        return adopted
    }

    /// Moves an unreadable manifest (still in the inbox, or claimed) to `rejected/` and
    /// writes the reason next to it.
    public func reject(path: String, name: String, reason: String) throws {
        let target = "\(rejectedFolder)/\(name).plist"
        if rename(path, target) != 0 {
            throw StorageError("move aside", path: path, errno: errno)
        }
        try AtomicFile.write(Array((reason + "\n").utf8), to: "\(rejectedFolder)/\(name).reason.txt")
    }

    /// Removes a `.cancel` request once it has been acted on.
    public func removeCancelRequest(name: String) {
        unlink("\(folder)/\(name).cancel")
    }

    /// Whether manifest `name` is waiting in the inbox, unclaimed.
    public func isWaiting(name: String) -> Bool {
        POSIX.exists("\(folder)/\(name).plist")
    }
}

/// A manifest this daemon holds: its file in the claim folder, locked while open.
///
/// Thread-safe: a stop (releasing every claim) and a manifest finishing can race, and the
/// descriptor must be closed exactly once — a second `close` could close a file another
/// thread has just opened under the same number. After `finish()` or `release()` the
/// claim is inert.
public final class ClaimedManifest: @unchecked Sendable {
    public let name: String
    public let path: String
    private let lock = NSLock()
    private var fd: Int32

    init(name: String, path: String, fd: Int32) {
        self.name = name
        self.path = path
        self.fd = fd
    }

    /// Reads the claimed file, refusing more than `limit` bytes before parsing anything.
    public func read(limit: Int) throws -> Data {
        let result: (bytes: [UInt8], tooLarge: Bool, errno: Int32?) = try lock.withLock {
            guard fd >= 0 else { throw StorageError("read", path: path, errno: EBADF) }
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw StorageError("read", path: path, errno: errno) }
            return POSIX.readAll(fd, limit: limit)
        }
        if let code = result.errno { throw StorageError("read", path: path, errno: code) }
        if result.tooLarge {
            throw ManifestRejection(message: "larger than the limit of \(limit) bytes")
        }
        return Data(result.bytes)
    }

    /// The manifest is finished: remove the claim and drop the lock. Does nothing once the
    /// claim was released (a stop got there first: the next start re-checks it).
    public func finish() {
        lock.withLock {
            guard fd >= 0 else { return }
            unlink(path)
            close(fd)
            fd = -1
        }
    }

    /// Drops the lock but keeps the claim, for the next start to resume.
    public func release() {
        lock.withLock {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }
    }

    deinit {
        release()
    }
}
