import DarkroomCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a journal file line by line, skipping lines that do not parse (a line torn
/// by a crash, or one written by something else), without loading the whole file.
public struct JournalReader {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Calls `body` with every record in file order. Returns the byte offset after the
    /// last complete line, where `follow` continues.
    @discardableResult
    public func forEach(from offset: Int = 0, _ body: (JournalRecord) throws -> Void) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return offset }
            throw StorageError("open journal", path: path, errno: errno)
        }
        defer { close(fd) }
        return try Self.read(fd: fd, from: offset, body)
    }

    static func read(fd: Int32, from offset: Int, _ body: (JournalRecord) throws -> Void) throws -> Int {
        var position = offset
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, off_t(position + pending.count)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError("read journal", path: "fd \(fd)", errno: errno)
            }
            if count == 0 { break }
            pending += chunk[..<count]
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if let record = JournalRecord(line: pending[start..<newline]) { try body(record) }
                start = newline + 1
            }
            position += start
            pending.removeFirst(start)
        }
        return position
    }

    /// All records, in order (for small journals and tests).
    public func records() throws -> [JournalRecord] {
        var all: [JournalRecord] = []
        try forEach { all.append($0) }
        return all
    }

    /// Prints records as they are appended, like `tail -F`, until `shouldStop` answers true.
    /// Follows the path across rotation: when the file is replaced, the old one is read to
    /// its end (a writer appends to it until it reopens) and reading restarts on the new one.
    /// The file followed is held open, so its inode cannot be reused by the replacement.
    public func follow(
        from offset: Int, pollInterval: Double = 0.2, shouldStop: () -> Bool = { false },
        _ body: (JournalRecord) throws -> Void
    ) throws {
        var position = offset
        var fd: Int32 = -1
        var followed = stat()
        defer { if fd >= 0 { close(fd) } }
        func openPath() {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0, fstat(fd, &followed) != 0 {
                close(fd)
                fd = -1
            }
        }
        while !shouldStop() {
            if fd < 0 { openPath() }
            if fd >= 0 {
                var named = stat()
                let replaced = stat(path, &named) == 0
                    && (named.st_ino != followed.st_ino || named.st_dev != followed.st_dev)
                var info = stat()
                if fstat(fd, &info) == 0, Int(info.st_size) < position { position = 0 }  // truncated in place
                position = try Self.read(fd: fd, from: position, body)
                if replaced {
                    close(fd)
                    position = 0
                    openPath()
                    if fd >= 0 { position = try Self.read(fd: fd, from: 0, body) }
                }
            }
            usleep(useconds_t(pollInterval * 1_000_000))
        }
    }
}
