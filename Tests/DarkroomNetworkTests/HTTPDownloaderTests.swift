import DarkroomCore
import DarkroomNetwork
import DarkroomTestSupport
import Foundation
import XCTest

final class HTTPDownloaderTests: XCTestCase {
    private var server: FaultServer!
    private var downloader: HTTPDownloader!
    private var directory: TemporaryDirectory!

    /// Short timeouts keep the fault tests fast; the behaviour does not depend on the scale.
    private let readTimeout = 0.5

    override func setUp() async throws {
        self.server = try FaultServer.start()
        self.downloader = HTTPDownloader(configuration: .init(connectTimeout: 1, readTimeout: self.readTimeout))
        self.directory = try TemporaryDirectory()
    }

    override func tearDown() async throws {
        try await self.downloader.shutdown()
        self.server.shutdown()
        self.directory.remove()
    }

    private func request(_ path: String, maxBytes: Int = 1 << 20, destination: String = "out.bin") -> DownloadRequest {
        DownloadRequest(url: URL(string: self.server.url(path))!, destination: self.directory.file(destination), maxBytes: maxBytes)
    }

    // MARK: Success

    func testDownloadWritesTheBodyExactly() async throws {
        let body = patternBytes(300_000)
        self.server.route("/photo.jpg", .bytes(body, contentType: "image/jpeg"))
        let request = self.request("/photo.jpg")

        let response = try await self.downloader.download(request)

        XCTAssertEqual(response.bytes, body.count)
        XCTAssertEqual(response.contentType, "image/jpeg")
        XCTAssertEqual(response.finalURL, request.url)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: request.destination)), body)
    }

    func testRequestHeadersOfferNoCompression() async throws {
        self.server.route("/photo.jpg", .bytes(patternBytes(10)))
        _ = try await self.downloader.download(self.request("/photo.jpg"))

        let headers = self.server.lastRequestHeaders("/photo.jpg")
        XCTAssertEqual(headers["user-agent"], "darkroom/0.1")
        XCTAssertNil(headers["accept-encoding"])
    }

    func testExistingDestinationIsTruncated() async throws {
        let request = self.request("/small.jpg")
        try Data(repeating: 0xFF, count: 10_000).write(to: URL(fileURLWithPath: request.destination))
        self.server.route("/small.jpg", .bytes(Data([1, 2, 3])))

        _ = try await self.downloader.download(request)

        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: request.destination)), Data([1, 2, 3]))
    }

    func testOther2xxWithABodyIsAccepted() async throws {
        self.server.route("/partial", .status(203, body: "non-authoritative"))
        let response = try await self.downloader.download(self.request("/partial"))
        XCTAssertEqual(response.bytes, "non-authoritative".utf8.count)
    }

    // MARK: HTTP statuses

    func testNotFoundAndGoneArePermanentHTTPFailures() async throws {
        self.server.route("/missing", .status(404, body: "nope"))
        self.server.route("/gone", .status(410))

        let notFound = await downloadFailure(self.downloader, self.request("/missing"))
        XCTAssertEqual(notFound?.code, "http-404")
        XCTAssertEqual(notFound?.description, "http-404: server answered 404 Not Found")
        XCTAssertEqual(notFound?.isTransient, false)

        let gone = await downloadFailure(self.downloader, self.request("/gone"))
        XCTAssertEqual(gone?.code, "http-410")
        XCTAssertEqual(gone?.isTransient, false)
    }

    func testServerErrorIsTransient() async throws {
        self.server.route("/broken", .status(500))
        let failure = await downloadFailure(self.downloader, self.request("/broken"))
        XCTAssertEqual(failure?.code, "http-500")
        XCTAssertEqual(failure?.isTransient, true)
    }

    func testTooManyRequestsCarriesRetryAfter() async throws {
        self.server.route("/busy", .retryAfter(status: 429, seconds: 7))
        let failure = await downloadFailure(self.downloader, self.request("/busy"))
        XCTAssertEqual(failure, DownloadFailure.http(status: 429, reason: "Too Many Requests", retryAfter: 7))
        XCTAssertEqual(failure?.isTransient, true)
    }

    func testEachAttemptIsOneRequest() async throws {
        // No hidden retries: the caller's RetryPolicy owns them.
        self.server.route("/flaky", .sequence([.status(503), .bytes(Data([9]))]))
        let first = await downloadFailure(self.downloader, self.request("/flaky"))
        XCTAssertEqual(first?.code, "http-503")
        XCTAssertEqual(self.server.requestCount("/flaky"), 1)
        let second = try await self.downloader.download(self.request("/flaky"))
        XCTAssertEqual(second.bytes, 1)
        XCTAssertEqual(self.server.requestCount("/flaky"), 2)
    }

    // MARK: Redirects

    func testRedirectsAreFollowedAndTheFinalURLReported() async throws {
        let body = patternBytes(1000)
        self.server.route("/start", .redirect(to: self.server.url("/middle"), status: 301))
        self.server.route("/middle", .redirect(to: "/final.jpg", status: 307))  // a path, resolved against /middle
        self.server.route("/final.jpg", .bytes(body))

        let response = try await self.downloader.download(self.request("/start"))

        XCTAssertEqual(response.bytes, body.count)
        XCTAssertEqual(response.finalURL?.absoluteString, self.server.url("/final.jpg"))
    }

    func testFiveRedirectsAreFollowedButNotSix() async throws {
        for hop in 0..<6 {
            self.server.route("/hop\(hop)", .redirect(to: "/hop\(hop + 1)"))
        }
        self.server.route("/hop6", .bytes(Data([1])))

        let fiveHops = try await self.downloader.download(self.request("/hop1"))
        XCTAssertEqual(fiveHops.finalURL?.path, "/hop6")

        let sixHops = await downloadFailure(self.downloader, self.request("/hop0"))
        XCTAssertEqual(sixHops?.code, "invalid-url")
        XCTAssertTrue(sixHops?.message.contains("too many redirects (more than 5)") ?? false, "\(String(describing: sixHops))")
        XCTAssertEqual(sixHops?.isTransient, false)
        XCTAssertEqual(self.server.requestCount("/hop6"), 1, "the sixth redirect must not be followed")
    }

    func testRedirectLoopFailsClearly() async throws {
        self.server.route("/a", .redirect(to: "/b"))
        self.server.route("/b", .redirect(to: "/a"))

        let failure = await downloadFailure(self.downloader, self.request("/a"))

        XCTAssertEqual(failure?.code, "invalid-url")
        XCTAssertTrue(failure?.message.contains("redirect loop") ?? false, "\(String(describing: failure))")
        XCTAssertEqual(self.server.requestCount("/a"), 1)
    }

    func testRedirectToAnotherSchemeIsRefused() async throws {
        self.server.route("/to-ftp", .redirect(to: "ftp://127.0.0.1/photo.jpg"))
        self.server.route("/to-file", .redirect(to: "file:///etc/passwd"))

        let ftp = await downloadFailure(self.downloader, self.request("/to-ftp"))
        XCTAssertEqual(ftp?.code, "scheme-not-allowed")
        let file = await downloadFailure(self.downloader, self.request("/to-file"))
        XCTAssertEqual(file?.code, "scheme-not-allowed")
        XCTAssertTrue(file?.message.contains("file:///etc/passwd") ?? false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: self.directory.file("out.bin")))
    }

    // MARK: Timeouts

    func testHangBeforeHeadersTimesOutAfterTheReadTimeout() async throws {
        self.server.route("/hang", .hangBeforeHeaders)

        let (failure, seconds) = await timed { await downloadFailure(self.downloader, self.request("/hang")) }

        XCTAssertEqual(failure?.code, "timeout")
        XCTAssertEqual(failure?.message, "no byte received from 127.0.0.1:\(self.server.port) for 0.5 s")
        XCTAssertEqual(failure?.isTransient, true)
        XCTAssertGreaterThanOrEqual(seconds, self.readTimeout * 0.9)
        XCTAssertLessThan(seconds, self.readTimeout + 1)
        let closed = await eventually { self.server.abortedCount("/hang") == 1 }
        XCTAssertTrue(closed, "the client must close the hung connection")
    }

    func testHangMidBodyTimesOut() async throws {
        self.server.route("/stall", .hangAfter(bytes: patternBytes(5000), declaredLength: 100_000))

        let (failure, seconds) = await timed { await downloadFailure(self.downloader, self.request("/stall")) }

        XCTAssertEqual(failure?.code, "timeout")
        XCTAssertLessThan(seconds, self.readTimeout + 1)
        XCTAssertEqual(fileSize(self.directory.file("out.bin")), 5000, "a partial file is left for the caller to remove")
    }

    func testTrickleSlowerThanTheReadTimeoutTimesOut() async throws {
        self.server.route("/slow", .trickle(patternBytes(10), bytesPerChunk: 1, interval: self.readTimeout * 2))

        let (failure, seconds) = await timed { await downloadFailure(self.downloader, self.request("/slow")) }

        XCTAssertEqual(failure?.code, "timeout")
        XCTAssertLessThan(seconds, self.readTimeout * 2)
    }

    func testTrickleFasterThanTheReadTimeoutSucceedsHoweverLongItTakes() async throws {
        // Fourteen chunks 0.1 s apart: 1.3 s in all, longer than the read timeout and longer
        // than the header deadline (connect + 2 × read = 1 s). Only silence is bounded.
        let downloader = HTTPDownloader(configuration: .init(connectTimeout: 0.2, readTimeout: 0.4))
        let body = patternBytes(1400)
        self.server.route("/steady", .trickle(body, bytesPerChunk: 100, interval: 0.1))

        let (response, seconds) = try await timed { try await downloader.download(self.request("/steady")) }

        XCTAssertEqual(response.bytes, body.count)
        XCTAssertGreaterThan(seconds, 1.2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: self.directory.file("out.bin"))), body)
        try await downloader.shutdown()
    }

    func testSlowHeadersWithinTheReadTimeoutAreAccepted() async throws {
        self.server.route("/thinking", .delayed(seconds: self.readTimeout / 2, .bytes(Data([1, 2]))))
        let response = try await self.downloader.download(self.request("/thinking"))
        XCTAssertEqual(response.bytes, 2)
    }

    // MARK: Sizes

    func testEndlessBodyFailsAtMaxBytes() async throws {
        let chunk = patternBytes(16 * 1024)
        self.server.route("/endless", .endless(chunk: chunk))
        let maxBytes = 1_000_000

        let failure = await downloadFailure(self.downloader, self.request("/endless", maxBytes: maxBytes))

        XCTAssertEqual(failure, DownloadFailure.tooLarge(limit: maxBytes))
        XCTAssertEqual(failure?.description, "too-large: more than 1000000 bytes")
        let size = try XCTUnwrap(fileSize(self.directory.file("out.bin")))
        XCTAssertLessThanOrEqual(size, maxBytes)
        XCTAssertGreaterThan(size, maxBytes - 2 * chunk.count - 65536)
        let closed = await eventually { self.server.abortedCount("/endless") == 1 }
        XCTAssertTrue(closed, "the client must hang up on an endless body")
    }

    func testDeclaredLengthAboveMaxBytesFailsWithoutReading() async throws {
        self.server.route("/huge", .hangAfter(bytes: Data(), declaredLength: 10_000_000_000))

        let (failure, seconds) = await timed {
            await downloadFailure(self.downloader, self.request("/huge", maxBytes: 1000))
        }

        XCTAssertEqual(failure, DownloadFailure.tooLarge(limit: 1000))
        XCTAssertLessThan(seconds, self.readTimeout, "must not wait for a body it refuses")
        XCTAssertFalse(FileManager.default.fileExists(atPath: self.directory.file("out.bin")))
    }

    func testBodyExactlyAtMaxBytesIsAccepted() async throws {
        self.server.route("/exact", .bytes(patternBytes(4096)))
        let response = try await self.downloader.download(self.request("/exact", maxBytes: 4096))
        XCTAssertEqual(response.bytes, 4096)
    }

    func testBodyShorterThanItsLengthIsAConnectionFailure() async throws {
        self.server.route("/liar", .lyingLength(patternBytes(1000), declaredLength: 5000))

        let failure = await downloadFailure(self.downloader, self.request("/liar"))

        XCTAssertEqual(failure?.code, "connection")
        XCTAssertEqual(failure?.message, "connection closed after 1000 of 5000 bytes from 127.0.0.1:\(self.server.port)")
        XCTAssertEqual(failure?.isTransient, true)
    }

    func testGzipBodyIsStoredAsSent() async throws {
        self.server.route("/bomb.jpg", .gzipBomb(decompressedSize: 100 << 20))

        let response = try await self.downloader.download(self.request("/bomb.jpg", maxBytes: 1 << 20))

        let stored = try Data(contentsOf: URL(fileURLWithPath: self.directory.file("out.bin")))
        XCTAssertEqual(response.bytes, stored.count)
        XCTAssertLessThan(stored.count, 200_000, "compressed size, not 100 MiB")
        XCTAssertEqual(Array(stored.prefix(2)), [0x1F, 0x8B], "still gzip")
    }

    // MARK: Connections

    func testRefusedConnectionIsAConnectionFailure() async throws {
        let closed = try FaultServer.start()
        let port = closed.port
        closed.shutdown()
        let request = DownloadRequest(url: URL(string: "http://127.0.0.1:\(port)/x")!, destination: self.directory.file("x"), maxBytes: 100)

        let (failure, seconds) = await timed { await downloadFailure(self.downloader, request) }

        XCTAssertEqual(failure?.code, "connection")
        XCTAssertEqual(failure?.message, "cannot connect to 127.0.0.1:\(port): Connection refused")
        XCTAssertEqual(failure?.isTransient, true)
        XCTAssertLessThan(seconds, 0.5, "one attempt: no reconnecting with back-off until the connect timeout")
    }

    func testUnansweredConnectTimesOutAfterTheConnectTimeout() async throws {
        let listener = try UnansweredListener()
        let request = DownloadRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/x")!, destination: self.directory.file("x"), maxBytes: 100)
        let downloader = HTTPDownloader(configuration: .init(connectTimeout: 0.5, readTimeout: 5))

        let (failure, seconds) = await timed { await downloadFailure(downloader, request) }

        XCTAssertEqual(failure, DownloadFailure.timeout("could not connect to 127.0.0.1:\(listener.port) within 0.5 s"))
        XCTAssertGreaterThanOrEqual(seconds, 0.45)
        XCTAssertLessThan(seconds, 1.5)
        try await downloader.shutdown()
    }

    func testWaitingForAPooledConnectionIsBoundedByTheConnectTimeout() async throws {
        // AsyncHTTPClient queues requests beyond the per-host connection limit and fails
        // those that wait longer than the connect timeout.
        self.server.route("/hang", .hangBeforeHeaders)
        let downloader = HTTPDownloader(configuration: .init(connectTimeout: 0.5, readTimeout: 5, maxConnectionsPerHost: 1))
        let first = self.request("/hang", destination: "first")
        let blocker = Task { await downloadError(downloader, first) }
        let requested = await eventually { self.server.requestCount("/hang") == 1 }
        XCTAssertTrue(requested)

        let failure = await downloadFailure(downloader, self.request("/hang", destination: "second"))

        XCTAssertEqual(failure, DownloadFailure.timeout("no connection to 127.0.0.1:\(self.server.port) became free within 0.5 s"))
        blocker.cancel()
        _ = await blocker.value
        try await downloader.shutdown()
    }

    func testTLSToAPlainHTTPServerIsAConnectionFailure() async throws {
        self.server.route("/photo.jpg", .bytes(patternBytes(10)))
        let url = URL(string: self.server.url("/photo.jpg").replacingOccurrences(of: "http:", with: "https:"))!

        let failure = await downloadFailure(self.downloader, DownloadRequest(url: url, destination: self.directory.file("x"), maxBytes: 100))

        XCTAssertEqual(failure?.code, "connection")
        XCTAssertEqual(failure?.message, "TLS with 127.0.0.1:\(self.server.port) failed: WRONG_VERSION_NUMBER")
    }

    func testUnsupportedSchemeIsRefusedBeforeAnyRequest() async throws {
        let request = DownloadRequest(url: URL(string: "ftp://127.0.0.1/x")!, destination: self.directory.file("x"), maxBytes: 100)
        let failure = await downloadFailure(self.downloader, request)
        XCTAssertEqual(failure?.code, "scheme-not-allowed")
    }

    // MARK: Write errors

    func testUnwritableDestinationIsAWriteError() async throws {
        self.server.route("/photo.jpg", .bytes(patternBytes(100)))
        let missingFolder = self.request("/photo.jpg", destination: "no-such-folder/out.bin")

        let error = await downloadError(self.downloader, missingFolder)

        let writeError = try XCTUnwrap(error as? DownloadWriteError, "\(String(describing: error))")
        XCTAssertEqual(writeError.errno, ENOENT)
        XCTAssertEqual(writeError.code, "write")
    }

    func testFullDiskIsAWriteError() async throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full")
        self.server.route("/photo.jpg", .bytes(patternBytes(100_000)))
        let request = DownloadRequest(url: URL(string: self.server.url("/photo.jpg"))!, destination: "/dev/full", maxBytes: 1 << 20)

        let error = await downloadError(self.downloader, request)

        XCTAssertEqual(error as? DownloadWriteError, DownloadWriteError(errno: ENOSPC, path: "/dev/full"))
        XCTAssertEqual((error as? DownloadWriteError)?.description, "write: cannot write /dev/full: No space left on device")
    }

    // MARK: Cancellation

    func testCancellingMidBodyStopsPromptlyAndClosesTheConnection() async throws {
        self.server.route("/endless", .endless(chunk: patternBytes(8192)))
        let downloader = self.downloader!
        let request = self.request("/endless", maxBytes: Int.max)
        let task = Task { try await downloader.download(request) }
        let streaming = await eventually { (fileSize(request.destination) ?? 0) > 100_000 }
        XCTAssertTrue(streaming)

        let start = Date()
        task.cancel()
        let result = await task.result
        let seconds = Date().timeIntervalSince(start)

        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertLessThan(seconds, 1)
        let closed = await eventually(timeout: 1) { self.server.abortedCount("/endless") == 1 }
        XCTAssertTrue(closed, "the server must see the connection closed")
    }

    func testCancellingWhileWaitingForHeadersStopsPromptly() async throws {
        self.server.route("/hang", .hangBeforeHeaders)
        let downloader = HTTPDownloader(configuration: .init(connectTimeout: 5, readTimeout: 30))
        let request = self.request("/hang")
        let task = Task { try await downloader.download(request) }
        let requested = await eventually { self.server.requestCount("/hang") == 1 }
        XCTAssertTrue(requested)

        let start = Date()
        task.cancel()
        let result = await task.result
        let seconds = Date().timeIntervalSince(start)

        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertLessThan(seconds, 1)
        let closed = await eventually(timeout: 1) { self.server.abortedCount("/hang") == 1 }
        XCTAssertTrue(closed, "the server must see the connection closed")
        try await downloader.shutdown()
    }

    func testAlreadyCancelledTaskSendsNothing() async throws {
        self.server.route("/photo.jpg", .bytes(patternBytes(10)))
        let downloader = self.downloader!
        let request = self.request("/photo.jpg")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await downloader.download(request)
        }
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(self.server.requestCount("/photo.jpg"), 0)
    }

    // MARK: Many at once

    func testConcurrentDownloadsShareTheClient() async throws {
        let body = patternBytes(50_000)
        self.server.route("/photo.jpg", .delayed(seconds: 0.05, .bytes(body)))
        let downloader = self.downloader!
        let directory = self.directory!
        let url = URL(string: self.server.url("/photo.jpg"))!

        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await downloader.download(DownloadRequest(url: url, destination: directory.file("p\(index)"), maxBytes: 1 << 20)).bytes
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        XCTAssertEqual(sizes, Array(repeating: body.count, count: 20))
        XCTAssertEqual(self.server.requestCount("/photo.jpg"), 20)
    }
}
