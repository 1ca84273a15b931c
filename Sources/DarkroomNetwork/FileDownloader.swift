import DarkroomCore
import Foundation

#if canImport(Glibc)
import Glibc
private let posixRead = Glibc.read
private let posixClose = Glibc.close
#elseif canImport(Musl)
import Musl
private let posixRead = Musl.read
private let posixClose = Musl.close
#elseif canImport(Darwin)
import Darwin
private let posixRead = Darwin.read
private let posixClose = Darwin.close
#endif

/// Copies `file://` URLs (accepted only with `darkroom run --allow-file-urls`), streaming in
/// chunks of ``chunkSize`` bytes, with the same ``Downloader`` contract as HTTP.
///
/// Errors map as follows:
///
/// | what happened | thrown |
/// |---|---|
/// | the file does not exist (`ENOENT`, `ENOTDIR`) | ``DownloadFailure/connection(_:)`` "no such file: /path" — the source is unreachable, like a refused connection, and may appear later (a file still being copied in), so it stays transient |
/// | the file cannot be opened or read (`EACCES`, `EIO`, …) | ``DownloadFailure/connection(_:)`` with the system's reason |
/// | not a regular file: directory, fifo, socket, device | ``DownloadFailure/invalidURL(_:)`` "not a regular file" — permanent, never retried |
/// | larger than `maxBytes` (by `fstat`, or by counting as it grows) | ``DownloadFailure/tooLarge(limit:)`` |
/// | a non-`file` URL, a URL naming a host other than `localhost` | ``DownloadFailure/schemeNotAllowed(_:)`` / ``DownloadFailure/invalidURL(_:)`` |
/// | source and destination are the same file | ``DownloadFailure/invalidURL(_:)`` (checked before the destination is truncated) |
/// | the destination cannot be written | ``DownloadWriteError`` |
/// | the task is cancelled | `CancellationError`, checked between chunks |
///
/// The source is opened with `O_NONBLOCK` and checked with `fstat` before any read, so a
/// fifo with no writer (or a device) never blocks the download. Reads and writes are plain
/// blocking calls on the calling task's thread, as befits local files. Safe to call
/// concurrently.
public struct FileDownloader: Downloader {
    /// Bytes read and written per system call. Default 64 KiB.
    public var chunkSize: Int

    public init(chunkSize: Int = 64 * 1024) {
        self.chunkSize = max(1, chunkSize)
    }

    public func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        try Task.checkCancellation()
        let url = request.url
        guard url.scheme?.lowercased() == "file" else {
            throw DownloadFailure.schemeNotAllowed("FileDownloader only reads file: URLs, not \(url.absoluteString)")
        }
        if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
            throw DownloadFailure.invalidURL("a file URL must not name a host (\(host))")
        }
        let path = url.path
        guard path.hasPrefix("/") else {
            throw DownloadFailure.invalidURL("\(url.absoluteString) has no absolute path")
        }

        let source = path.withCString { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        guard source >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw DownloadFailure.connection("no such file: \(path)")
            }
            throw DownloadFailure.connection("cannot open \(path): \(String(cString: strerror(code)))")
        }
        defer { _ = posixClose(source) }

        var info = stat()
        guard fstat(source, &info) == 0 else {
            throw DownloadFailure.connection("cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw DownloadFailure.invalidURL("not a regular file: \(path) (\(fileKind(info.st_mode)))")
        }
        if Int(info.st_size) > request.maxBytes {
            throw DownloadFailure.tooLarge(limit: request.maxBytes)
        }
        var destinationInfo = stat()
        if stat(request.destination, &destinationInfo) == 0, destinationInfo.st_dev == info.st_dev, destinationInfo.st_ino == info.st_ino {
            throw DownloadFailure.invalidURL("\(path) is the destination file itself")
        }

        let sink = try FileSink(path: request.destination)
        defer { sink.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            try Task.checkCancellation()
            let count = posixRead(source, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw DownloadFailure.connection("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            total += count
            if total > request.maxBytes {
                // The file grew after fstat; the excess is never written.
                throw DownloadFailure.tooLarge(limit: request.maxBytes)
            }
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        try sink.finish()
        return DownloadResponse(bytes: total, contentType: nil, finalURL: url)
    }
}

private func fileKind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "a directory"
    case S_IFIFO: "a fifo"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFLNK: "a symbolic link"
    default: "not a regular file"
    }
}
