import DarkroomCore
import DarkroomNetwork
import Foundation
import XCTest

final class FileDownloaderTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let downloader = FileDownloader(chunkSize: 4096)

    override func setUp() async throws {
        self.directory = try TemporaryDirectory()
    }

    override func tearDown() async throws {
        self.directory.remove()
    }

    private func request(_ source: String, maxBytes: Int = 1 << 20) -> DownloadRequest {
        DownloadRequest(url: URL(fileURLWithPath: source), destination: self.directory.file("out.bin"), maxBytes: maxBytes)
    }

    func testCopiesTheFileExactly() async throws {
        let body = patternBytes(100_003)  // not a multiple of the chunk size
        let source = self.directory.file("photo.jpg")
        try body.write(to: URL(fileURLWithPath: source))

        let response = try await self.downloader.download(self.request(source))

        XCTAssertEqual(response.bytes, body.count)
        XCTAssertNil(response.contentType)
        XCTAssertEqual(response.finalURL, URL(fileURLWithPath: source))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: self.directory.file("out.bin"))), body)
    }

    func testLargerThanMaxBytesIsTooLarge() async throws {
        let source = self.directory.file("big.jpg")
        try patternBytes(10_000).write(to: URL(fileURLWithPath: source))

        let failure = await downloadFailure(self.downloader, self.request(source, maxBytes: 9_999))
        XCTAssertEqual(failure, DownloadFailure.tooLarge(limit: 9_999))
        XCTAssertFalse(FileManager.default.fileExists(atPath: self.directory.file("out.bin")), "refused before copying")

        let exact = try await self.downloader.download(self.request(source, maxBytes: 10_000))
        XCTAssertEqual(exact.bytes, 10_000)
    }

    func testMissingFileIsAConnectionFailure() async throws {
        let source = self.directory.file("nothing-here.jpg")
        let failure = await downloadFailure(self.downloader, self.request(source))
        XCTAssertEqual(failure, DownloadFailure.connection("no such file: \(source)"))
        XCTAssertEqual(failure?.isTransient, true)
    }

    func testFifoIsRefusedWithoutBlocking() async throws {
        let source = self.directory.file("pipe")
        XCTAssertEqual(mkfifo(source, 0o644), 0)

        let (failure, seconds) = await timed { await downloadFailure(self.downloader, self.request(source)) }

        XCTAssertEqual(failure, DownloadFailure.invalidURL("not a regular file: \(source) (a fifo)"))
        XCTAssertEqual(failure?.isTransient, false)
        XCTAssertLessThan(seconds, 1)
    }

    func testDirectoryAndDeviceAreRefused() async throws {
        let directoryFailure = await downloadFailure(self.downloader, self.request(self.directory.path))
        XCTAssertEqual(directoryFailure?.code, "invalid-url")

        let device = await downloadFailure(self.downloader, self.request("/dev/zero"))
        XCTAssertEqual(device, DownloadFailure.invalidURL("not a regular file: /dev/zero (a character device)"))
    }

    func testCopyingAFileOntoItselfIsRefusedBeforeTruncating() async throws {
        let source = self.directory.file("out.bin")
        try patternBytes(500).write(to: URL(fileURLWithPath: source))

        let failure = await downloadFailure(self.downloader, self.request(source))

        XCTAssertEqual(failure?.code, "invalid-url")
        XCTAssertEqual(fileSize(source), 500)
    }

    func testRemoteHostIsRefused() async throws {
        let request = DownloadRequest(url: URL(string: "file://server/share/photo.jpg")!, destination: self.directory.file("x"), maxBytes: 10)
        let failure = await downloadFailure(self.downloader, request)
        XCTAssertEqual(failure?.code, "invalid-url")
    }

    func testUnwritableDestinationIsAWriteError() async throws {
        let source = self.directory.file("photo.jpg")
        try patternBytes(10).write(to: URL(fileURLWithPath: source))
        let request = DownloadRequest(url: URL(fileURLWithPath: source), destination: self.directory.file("missing/out.bin"), maxBytes: 100)

        let error = await downloadError(self.downloader, request)

        XCTAssertEqual(error as? DownloadWriteError, DownloadWriteError(errno: ENOENT, path: request.destination))
    }

    func testCancelledTaskCopiesNothing() async throws {
        let source = self.directory.file("photo.jpg")
        try patternBytes(10).write(to: URL(fileURLWithPath: source))
        let request = self.request(source)
        let downloader = self.downloader
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await downloader.download(request)
        }
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
    }
}
