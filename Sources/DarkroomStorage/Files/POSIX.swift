#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers shared by the storage types.
enum POSIX {
    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// Reads a whole file descriptor from its current offset, refusing more than `limit` bytes.
    static func readAll(_ fd: Int32, limit: Int) -> (bytes: [UInt8], tooLarge: Bool, errno: Int32?) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return (bytes, false, errno)
            }
            if count == 0 { return (bytes, false, nil) }
            bytes += chunk[..<count]
            if bytes.count > limit { return (bytes, true, nil) }
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// mkdir -p with mode 0755 (0775 for group-writable folders).
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws {
        if isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw StorageError("create folder", path: prefix, errno: errno)
            }
        }
        guard isDirectory(path) else { throw StorageError("create folder", path: path, errno: ENOTDIR) }
    }

    /// Entries of a folder (not "." or ".."), unsorted; empty if it cannot be read.
    static func listFolder(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The name of this machine, as journal lines and claim folders use it.
public let currentHostName = POSIX.hostName()
