@testable import DarkroomTestSupport
import Foundation
import XCTest

/// The fault server itself, checked with plain URLSession-free sockets where it matters.
final class FaultServerTests: XCTestCase {
    func testGzipBombCRCMatchesZlib() {
        // Reference values from Python's zlib.crc32(bytes(n)).
        XCTAssertEqual(GzipBomb.crc32OfZeros(count: 0), 0)
        XCTAssertEqual(GzipBomb.crc32OfZeros(count: 1), 0xD202_EF8D)
        XCTAssertEqual(GzipBomb.crc32OfZeros(count: 1 << 20), 0xA738_EA1C)
        XCTAssertEqual(GzipBomb.crc32OfZeros(count: 100 << 20), 0x4B28_2398)
    }

    func testGzipBombIsSmallAndWellFormed() {
        let bomb = GzipBomb.make(decompressedSize: 100 << 20)
        XCTAssertEqual(bomb.count, 101_690, "byte-for-byte what the Python reference inflated back to 100 MiB of zeros")
        XCTAssertEqual(Array(bomb.prefix(3)), [0x1F, 0x8B, 8])
        // ISIZE trailer: 100 MiB, little-endian.
        XCTAssertEqual(Array(bomb.suffix(4)), [0x00, 0x00, 0x40, 0x06])
    }

    func testUnknownPathIs404AndCountsRequests() throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        server.route("/known", .bytes(Data("hi".utf8), contentType: "text/plain"))

        XCTAssertTrue(try rawGet(server, "/nowhere").hasPrefix("HTTP/1.1 404"))
        let known = try rawGet(server, "/known?x=1")
        XCTAssertTrue(known.hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(known.hasSuffix("\r\n\r\nhi"))
        XCTAssertEqual(server.requestCount("/known"), 1)
        XCTAssertEqual(server.requestCount("/nowhere"), 1)
        XCTAssertTrue(server.url("known").hasSuffix(":\(server.port)/known"))
    }

    func testSequenceRepeatsItsLastStep() throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        server.route("/s", .sequence([.status(503), .retryAfter(status: 429, seconds: 3), .status(204)]))

        let answers = try (0..<4).map { _ in try rawGet(server, "/s") }

        XCTAssertTrue(answers[0].hasPrefix("HTTP/1.1 503"))
        XCTAssertTrue(answers[1].hasPrefix("HTTP/1.1 429"))
        XCTAssertTrue(answers[1].lowercased().contains("retry-after: 3\r\n"))
        XCTAssertTrue(answers[2].hasPrefix("HTTP/1.1 204"))
        XCTAssertTrue(answers[3].hasPrefix("HTTP/1.1 204"))
    }

    func testShutdownClosesHungConnectionsPromptly() throws {
        let server = try FaultServer.start()
        server.route("/hang", .hangBeforeHeaders)
        server.route("/endless", .endless(chunk: Data(repeating: 1, count: 1024)))
        let hung = try RawConnection(port: server.port)
        try hung.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        let flooding = try RawConnection(port: server.port)
        try flooding.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(waitUntil { server.requestCount("/hang") == 1 && server.requestCount("/endless") == 1 })

        let start = Date()
        server.shutdown()
        server.shutdown()  // idempotent

        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertThrowsError(try RawConnection(port: server.port), "nothing listens any more")
    }

    func testClientHangingUpMidStreamLeavesTheServerServing() throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        server.route("/endless", .endless(chunk: Data(repeating: 7, count: 4096)))
        server.route("/ok", .bytes(Data("ok".utf8)))

        for _ in 0..<5 {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.receive(atLeast: 10_000)
            connection.close()
        }

        XCTAssertTrue(waitUntil { server.abortedCount("/endless") == 5 })
        XCTAssertTrue(try rawGet(server, "/ok").hasSuffix("ok"))
        XCTAssertTrue(waitUntil { server.openConnections == 0 })
    }
}

private func waitUntil(timeout: Double = 2, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// One GET with `Connection: close`, read to EOF.
private func rawGet(_ server: FaultServer, _ path: String) throws -> String {
    let connection = try RawConnection(port: server.port)
    defer { connection.close() }
    try connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    return String(decoding: try connection.receiveAll(), as: UTF8.self)
}

/// A blocking TCP client on 127.0.0.1, to talk to the server without any HTTP client's opinions.
private final class RawConnection {
    private var fd: Int32

    struct Failure: Error {
        let what: String
        let code: Int32
    }

    init(port: Int) throws {
        self.fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard self.fd >= 0 else { throw Failure(what: "socket", code: errno) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(self.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(self.fd)
            throw Failure(what: "connect", code: code)
        }
    }

    deinit {
        self.close()
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(self.fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw Failure(what: "send", code: errno)
        }
    }

    func receive(atLeast count: Int) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < count {
            let n = recv(self.fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw Failure(what: "recv", code: errno) }
            received += buffer[0..<n]
        }
        return received
    }

    func receiveAll() throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(self.fd, &buffer, buffer.count, 0)
            if n == 0 { return received }
            guard n > 0 else { throw Failure(what: "recv", code: errno) }
            received += buffer[0..<n]
        }
    }

    func close() {
        if self.fd >= 0 {
            Glibc.close(self.fd)
            self.fd = -1
        }
    }
}
