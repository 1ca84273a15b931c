import CDarkroomSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file-system call, with the path and the system's reason.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The system's sentence for `errno`, e.g. "No space left on device".
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(operation) \(path): \(reason)" }
}

/// Files that appear whole or not at all.
///
/// The content goes to a temporary file in the destination's folder (named
/// `.darkroom-XXXXXX.tmp`, so readers and scans skip it), is flushed, optionally
/// fsynced, and renamed over the destination. A reader sees the old file or the new
/// one, never a partial one; with `durable` the new file also survives a power loss
/// once this returns (the folder is fsynced after the rename).
public enum AtomicFile {
    /// The suffix of temporary files; anything ending in it is debris from an interrupted write.
    public static let temporarySuffix = ".tmp"
    public static let temporaryPrefix = ".darkroom-"

    /// Calls `body` with a file descriptor open for writing on a new temporary file,
    /// then moves the file to `path`. If `body` throws, or flushing fails, the
    /// temporary file is removed and `path` is left as it was.
    ///
    /// - Parameters:
    ///   - durable: fsync the file before the rename and the folder after it. Default true.
    ///   - permissions: mode of the new file. Default 0644.
    ///   - attributes: extended attributes set on the file before the rename, so that they
    ///     appear with its content, atomically. Skipped where the file system has none
    ///     (`ENOTSUP`); other failures throw.
    public static func write<T>(
        to path: String, durable: Bool = true, permissions: mode_t = 0o644, attributes: [String: [UInt8]] = [:],
        _ body: (Int32) throws -> T
    ) throws -> T {
        let folder = parentFolder(of: path)
        var template = Array("\(folder)/\(temporaryPrefix)XXXXXX\(temporarySuffix)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer {
            mkstemps($0.baseAddress!, Int32(temporarySuffix.utf8.count))
        }
        guard fd >= 0 else { throw StorageError("create a temporary file in", path: folder, errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var keep = false
        defer {
            if !keep { unlink(temporary) }
        }
        let result: T
        do {
            defer { close(fd) }
            result = try body(fd)
            guard fchmod(fd, permissions) == 0 else { throw StorageError("chmod", path: temporary, errno: errno) }
            for (name, value) in attributes {
                let status = value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
                if status != 0 && errno != ENOTSUP {
                    throw StorageError("set attribute \(name) on", path: temporary, errno: errno)
                }
            }
            if durable, fsync(fd) != 0 { throw StorageError("fsync", path: temporary, errno: errno) }
        }
        guard rename(temporary, path) == 0 else { throw StorageError("rename into", path: path, errno: errno) }
        keep = true
        if durable { try syncFolder(folder) }
        return result
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, durable: Bool = true) throws {
        let data = Array(bytes)
        try write(to: path, durable: durable) { fd in
            var offset = 0
            while offset < data.count {
                let written = data.withUnsafeBytes { raw in
                    Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StorageError("write", path: path, errno: errno)
                }
                offset += written
            }
        }
    }

    /// The value of extended attribute `name` of the file at `path` (not following a
    /// symbolic link); nil when it has none, or is not a regular file.
    public static func attribute(_ name: String, of path: String, maxBytes: Int = 16384) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let count = buffer.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return Array(buffer.prefix(count))
    }

    /// fsyncs a folder, so that a rename or a new entry in it is durable.
    public static func syncFolder(_ folder: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("open", path: folder, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError("fsync", path: folder, errno: errno) }
    }

    /// Whether `name` (a file name, not a path) is one of our temporary files.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix)
    }

    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
