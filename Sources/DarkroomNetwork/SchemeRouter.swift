import DarkroomCore
import Foundation

/// Sends each request to the downloader for its URL's scheme: `http` and `https` to `http`,
/// `file` to `file` when file URLs are allowed (`darkroom run --allow-file-urls`).
///
/// Any other scheme, or `file` without a file downloader, fails with
/// ``DownloadFailure/schemeNotAllowed(_:)``; a URL without a scheme with
/// ``DownloadFailure/invalidURL(_:)``. Manifests are checked against the same rules when
/// parsed (`URLPolicy`), so this is the last line of defence, not the first.
public struct SchemeRouter: Downloader {
    public let http: any Downloader
    public let file: (any Downloader)?

    /// - Parameters:
    ///   - http: used for `http` and `https` URLs.
    ///   - file: used for `file` URLs; nil (file URLs not allowed) refuses them.
    public init(http: any Downloader, file: (any Downloader)?) {
        self.http = http
        self.file = file
    }

    public func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        switch request.url.scheme?.lowercased() {
        case "http", "https":
            return try await self.http.download(request)
        case "file":
            guard let file = self.file else {
                throw DownloadFailure.schemeNotAllowed(
                    "scheme 'file' is not allowed (only http and https, unless file URLs are allowed with --allow-file-urls)"
                )
            }
            return try await file.download(request)
        case nil, "":
            throw DownloadFailure.invalidURL("\(request.url.absoluteString) has no scheme")
        case let scheme?:
            throw DownloadFailure.schemeNotAllowed("scheme '\(scheme)' is not allowed; only http and https")
        }
    }
}
