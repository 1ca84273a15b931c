import DarkroomCore
import Foundation

/// One download to perform: fetch `url` into the file `destination`, refusing more than
/// `maxBytes` bytes of body.
public struct DownloadRequest: Sendable {
    /// What to fetch. Which schemes are accepted depends on the ``Downloader``.
    public var url: URL
    /// The file to create, or to truncate if it exists. Its directory must exist.
    public var destination: String
    /// The most body bytes accepted (the daemon's `--max-download-bytes`, 64 MiB by default).
    /// A declared or counted size above it fails with ``DownloadFailure/tooLarge(limit:)``.
    public var maxBytes: Int

    /// - Parameters:
    ///   - url: what to fetch.
    ///   - destination: the file to create or truncate.
    ///   - maxBytes: the most body bytes accepted; default 64 MiB, as `--max-download-bytes`.
    public init(url: URL, destination: String, maxBytes: Int = 64 << 20) {
        self.url = url
        self.destination = destination
        self.maxBytes = maxBytes
    }
}

/// What a successful download produced.
public struct DownloadResponse: Sendable, Equatable {
    /// How many bytes were written to the destination (the body as sent: never decompressed).
    public var bytes: Int
    /// The `Content-Type` the server declared, if any (nil for `file://`).
    public var contentType: String?
    /// The URL the bytes finally came from, after redirects.
    public var finalURL: URL?

    public init(bytes: Int, contentType: String? = nil, finalURL: URL? = nil) {
        self.bytes = bytes
        self.contentType = contentType
        self.finalURL = finalURL
    }
}

/// Fetches image bytes into a file.
///
/// Contract of ``download(_:)``, for every conformer:
/// - It makes **one attempt** and never retries: the caller retries transient failures with
///   its `RetryPolicy` and journals every attempt.
/// - It **streams** the body to ``DownloadRequest/destination`` as it arrives, never holding
///   the whole body in memory, and counts the bytes itself: as soon as the count, or a
///   declared length, exceeds ``DownloadRequest/maxBytes`` it fails with
///   ``DownloadFailure/tooLarge(limit:)`` without writing the excess.
/// - It fails with a ``DownloadFailure`` for anything about the source, with a
///   ``DownloadWriteError`` when the destination cannot be written, and with
///   `CancellationError` — promptly, aborting the transfer — when its task is cancelled.
/// - On any failure or cancellation it may leave a partial destination file behind; removing
///   it is the caller's job (the caller writes to a temporary name anyway).
///
/// Conformers are safe to call concurrently from any number of tasks.
public protocol Downloader: Sendable {
    func download(_ request: DownloadRequest) async throws -> DownloadResponse
}

/// The destination file could not be created or written (`ENOSPC`, `EACCES`, `EIO`, …).
///
/// Deliberately not a ``DownloadFailure``: the source was fine and the failure is ours, so
/// the caller journals it with the code ``code`` (`"write"`) and does not blame the URL.
/// It is not transient in the retry sense: a full disk is not fixed by fetching again.
public struct DownloadWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` of the failed `open(2)` or `write(2)`.
    public var errno: Int32
    /// The destination path.
    public var path: String

    public init(errno: Int32, path: String) {
        self.errno = errno
        self.path = path
    }

    /// The journal's stable error code: always `"write"`.
    public var code: String { "write" }

    /// A human sentence, such as `cannot write /outbox/x/.tmp-1: No space left on device`.
    public var message: String {
        "cannot write \(self.path): \(String(cString: strerror(self.errno)))"
    }

    public var description: String { "\(self.code): \(self.message)" }
}
