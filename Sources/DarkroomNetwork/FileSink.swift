import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
private let posixWrite = Glibc.write
private let posixClose = Glibc.close
#elseif canImport(Musl)
import Musl
private let posixWrite = Musl.write
private let posixClose = Musl.close
#elseif canImport(Darwin)
import Darwin
private let posixWrite = Darwin.write
private let posixClose = Darwin.close
#endif

/// The destination file of a download, written with plain `write(2)`.
///
/// Plain blocking writes on the calling task's thread: a chunk goes to the page cache in
/// microseconds, and going through an I/O thread pool would cost more than it saves. Not
/// thread-safe; one download owns it.
final class FileSink {
    let path: String
    private var descriptor: Int32
    private(set) var bytesWritten = 0

    /// Creates or truncates `path` with mode 0644 (before the umask).
    init(path: String) throws {
        self.path = path
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else {
            throw DownloadWriteError(errno: errno, path: path)
        }
        self.descriptor = fd
    }

    deinit {
        self.close()
    }

    func write(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { try self.write($0) }
    }

    /// Writes all of `bytes`, looping over partial writes and `EINTR`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = posixWrite(self.descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw DownloadWriteError(errno: errno, path: self.path)
            }
            if written == 0 {
                // write(2) returning 0 for a non-zero count on a regular file means no
                // progress is possible; report it as the disk being full rather than spin.
                throw DownloadWriteError(errno: ENOSPC, path: self.path)
            }
            base += written
            remaining -= written
            self.bytesWritten += written
        }
    }

    /// Closes the file; a failing close(2) (NFS reports deferred write errors there) throws.
    func finish() throws {
        let fd = self.descriptor
        self.descriptor = -1
        guard fd >= 0 else { return }
        if posixClose(fd) != 0, errno != EINTR {
            throw DownloadWriteError(errno: errno, path: self.path)
        }
    }

    func close() {
        if self.descriptor >= 0 {
            _ = posixClose(self.descriptor)
            self.descriptor = -1
        }
    }
}
