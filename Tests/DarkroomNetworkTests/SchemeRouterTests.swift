import DarkroomCore
import DarkroomNetwork
import Foundation
import XCTest

/// Records the URLs it was asked for and answers with `bytes`.
private final class RecordingDownloader: Downloader, @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    var requested: [URL] {
        self.lock.withLock { self.urls }
    }

    func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        self.lock.withLock { self.urls.append(request.url) }
        return DownloadResponse(bytes: self.bytes, contentType: nil, finalURL: request.url)
    }
}

final class SchemeRouterTests: XCTestCase {
    private func request(_ url: String) -> DownloadRequest {
        DownloadRequest(url: URL(string: url)!, destination: "/nonexistent/out", maxBytes: 10)
    }

    func testRoutesByScheme() async throws {
        let http = RecordingDownloader(bytes: 1)
        let file = RecordingDownloader(bytes: 2)
        let router = SchemeRouter(http: http, file: file)

        let plain = try await router.download(self.request("http://example.invalid/a.jpg"))
        let secure = try await router.download(self.request("HTTPS://example.invalid/b.jpg"))
        let local = try await router.download(self.request("file:///srv/c.jpg"))

        XCTAssertEqual([plain.bytes, secure.bytes, local.bytes], [1, 1, 2])
        XCTAssertEqual(http.requested.map(\.lastPathComponent), ["a.jpg", "b.jpg"])
        XCTAssertEqual(file.requested.map(\.lastPathComponent), ["c.jpg"])
    }

    func testFileURLsWithoutAFileDownloaderAreNotAllowed() async throws {
        let http = RecordingDownloader(bytes: 1)
        let router = SchemeRouter(http: http, file: nil)

        let failure = await downloadFailure(router, self.request("file:///etc/passwd"))

        XCTAssertEqual(failure?.code, "scheme-not-allowed")
        XCTAssertTrue(failure?.message.contains("--allow-file-urls") ?? false)
        XCTAssertTrue(http.requested.isEmpty)
    }

    func testOtherSchemesAreNotAllowed() async throws {
        let http = RecordingDownloader(bytes: 1)
        let router = SchemeRouter(http: http, file: RecordingDownloader(bytes: 2))

        for url in ["ftp://example.invalid/a.jpg", "data:image/png;base64,AAAA", "gopher://example.invalid/"] {
            let failure = await downloadFailure(router, self.request(url))
            XCTAssertEqual(failure?.code, "scheme-not-allowed", url)
        }
        XCTAssertTrue(http.requested.isEmpty)
    }
}
