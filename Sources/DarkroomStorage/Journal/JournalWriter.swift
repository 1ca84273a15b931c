import DarkroomCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Appends journal records to a JSON Lines file (SPEC §4).
///
/// Each record is one `write(2)` on a file opened with `O_APPEND`, so a reader never
/// sees half a line and several processes on one machine can share the file. The
/// writer fsyncs after daemon and manifest events (`JournalEvent.isDurablePoint`) and
/// on `sync()`; entry events between two durable points may be lost by a power cut,
/// which replay tolerates (an entry with no final event is simply redone).
///
/// Thread-safe: appends from any thread are serialised by a lock.
public final class JournalWriter: @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var fd: Int32
    /// An append failed: the file may end in part of a line.
    private var mayBeTorn = false

    /// Opens (creating if needed) the journal at `path`. A file whose last line was torn
    /// by a crash gets a newline first, so the next record starts on a line of its own.
    public init(path: String) throws {
        self.path = path
        self.fd = try Self.open(path)
    }

    private static func open(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("open journal", path: path, errno: errno) }
        try repairTornTail(fd: fd, path: path)
        return fd
    }

    private static func repairTornTail(fd: Int32, path: String) throws {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return }
        let reader = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return }
        defer { close(reader) }
        var last: UInt8 = 0
        guard pread(reader, &last, 1, off_t(info.st_size - 1)) == 1, last != UInt8(ascii: "\n") else { return }
        let newline: [UInt8] = [UInt8(ascii: "\n")]
        if let code = newline.withUnsafeBytes({ POSIX.writeAll(fd, $0) }) {
            throw StorageError("repair journal", path: path, errno: code)
        }
    }

    /// Appends `record` as one line; fsyncs when it is a durable point.
    public func append(_ record: JournalRecord) throws {
        let line = record.encodedLine()
        lock.lock()
        defer { lock.unlock() }
        if mayBeTorn {
            // An earlier append failed part-way (a full disk): its fragment must not run
            // into this line. If the newline cannot be written either, nothing else can.
            try Self.repairTornTail(fd: fd, path: path)
            mayBeTorn = false
        }
        if let code = line.withUnsafeBytes({ POSIX.writeAll(fd, $0) }) {
            mayBeTorn = true
            throw StorageError("append to journal", path: path, errno: code)
        }
        if record.event.isDurablePoint, fsync(fd) != 0 {
            throw StorageError("fsync journal", path: path, errno: errno)
        }
    }

    /// Makes every appended line durable.
    public func sync() throws {
        lock.lock()
        defer { lock.unlock() }
        if fsync(fd) != 0 { throw StorageError("fsync journal", path: path, errno: errno) }
    }

    /// Closes and reopens the path, after log rotation moved the old file away (SIGHUP).
    public func reopen() throws {
        let newFD = try Self.open(path)
        lock.lock()
        let old = fd
        fd = newFD
        mayBeTorn = false
        lock.unlock()
        fsync(old)
        close(old)
    }

    deinit {
        fsync(fd)
        close(fd)
    }
}
