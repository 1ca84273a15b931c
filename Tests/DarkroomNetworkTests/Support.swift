import DarkroomCore
import DarkroomNetwork
import Foundation
import XCTest

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        self.path = NSTemporaryDirectory() + "darkroom-network-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        self.path + "/" + name
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }
}

/// What a download threw, or nil when it succeeded.
func downloadError(_ downloader: any Downloader, _ request: DownloadRequest) async -> (any Error)? {
    do {
        _ = try await downloader.download(request)
        return nil
    } catch {
        return error
    }
}

/// The `DownloadFailure` a download threw; fails the test for success or any other error.
func downloadFailure(
    _ downloader: any Downloader,
    _ request: DownloadRequest,
    file: StaticString = #filePath,
    line: UInt = #line
) async -> DownloadFailure? {
    let error = await downloadError(downloader, request)
    guard let failure = error as? DownloadFailure else {
        XCTFail("expected a DownloadFailure, got \(error.map { "\($0)" } ?? "success")", file: file, line: line)
        return nil
    }
    return failure
}

/// Seconds taken by `body`.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = Date()
    let value = try await body()
    return (value, Date().timeIntervalSince(start))
}

/// Polls `condition` every 10 ms for up to `timeout` seconds.
func eventually(timeout: Double = 2, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
}

/// Deterministic bytes that are not all the same, so a reordering or a gap would show.
func patternBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}

/// A TCP listener on 127.0.0.1 that never accepts and whose accept queue is full, so that
/// further connection attempts get no answer at all: a connect timeout, without leaving
/// the machine.
final class UnansweredListener {
    let port: Int
    private let listener: Int32
    private var fillers: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 0) == 0 else {
            let code = errno
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        // A backlog of 0 still queues one connection; a few more make sure the queue is full
        // and later SYNs are dropped.
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        self.fillers = fillers
        usleep(50_000)
    }

    deinit {
        for filler in self.fillers {
            close(filler)
        }
        close(self.listener)
    }
}
