import DarkroomCore
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

/// `darkroom run` as a process, fed by a local HTTP server on 127.0.0.1 that injects faults.
final class DaemonProcessTests: XCTestCase {
    private var server: FaultServer!
    private var site: Site!

    override func setUpWithError() throws {
        server = try FaultServer.start()
        site = Site()
    }

    override func tearDown() {
        site = nil
        server.shutdown()
    }

    func testEveryServerFaultGivesItsCodeAndTheRestIsFiltered() throws {
        server.route("/rose.png", .bytes(fixture("png-rose-im.png"), contentType: "image/png"))
        server.route("/rose.jpg", .bytes(fixture("jpeg-420.jpg")))
        server.route("/flaky.jpg", .sequence([.status(500), .status(503), .bytes(fixture("jpeg-444.jpg"))]))
        server.route("/gone", .status(410))
        server.route("/hang", .hangBeforeHeaders)
        server.route("/stall", .hangAfter(bytes: fixture("jpeg-420.jpg").prefix(500), declaredLength: 5000))
        server.route("/trickle", .trickle(fixture("jpeg-420.jpg"), bytesPerChunk: 10, interval: 2))
        server.route("/endless", .endless(chunk: Data(repeating: 0xFF, count: 8192)))
        server.route("/html", .bytes(Data("<html><body>not a photo</body></html>".utf8), contentType: "image/jpeg"))
        server.route("/truncated.jpg", .bytes(fixture("bad-jpeg-truncated.jpg")))
        try site.startDaemon(["--timeout", "1", "--retries", "2", "--max-download-bytes", "300000"])
        let names = [
            "rose-png": "/rose.png", "rose-jpg": "/rose.jpg", "flaky": "/flaky.jpg", "gone": "/gone", "hang": "/hang",
            "stall": "/stall", "trickle": "/trickle", "endless": "/endless", "html": "/html", "truncated": "/truncated.jpg",
            "missing": "/nothing-here",
        ]
        var photos = names.mapValues { server.url($0) }
        photos["no-url"] = "NO URL"
        try site.drop("faults", photos)
        XCTAssertTrue(site.waitFor(timeout: 40) { $0.contains { $0.event == .manifestFinished && $0.manifest == "faults" } }, site.daemonLog())
        let result = try site.result("faults")
        func code(_ entry: String) -> String? {
            guard let error = result.entries[entry]?.error else { return result.entries[entry]?.state.rawValue }
            return String(error.prefix { $0 != ":" })
        }
        XCTAssertEqual(code("rose-png"), "filtered")
        XCTAssertEqual(code("rose-jpg"), "filtered")
        XCTAssertEqual(code("flaky"), "filtered")
        XCTAssertEqual(code("gone"), "http-410")
        XCTAssertEqual(code("missing"), "http-404")
        XCTAssertEqual(code("hang"), "timeout")
        XCTAssertEqual(code("stall"), "timeout")
        XCTAssertEqual(code("trickle"), "timeout")
        XCTAssertEqual(code("endless"), "too-large")
        XCTAssertEqual(code("html"), "not-an-image")
        XCTAssertEqual(code("truncated"), "decode")
        XCTAssertEqual(code("no-url"), "invalid-url")
        XCTAssertEqual(server.requestCount("/flaky.jpg"), 3)
        XCTAssertEqual(server.requestCount("/gone"), 1, "a 4xx is not retried")
        XCTAssertEqual(server.requestCount("/hang"), 3, "a timeout is retried")
        XCTAssertEqual(site.temporaryFiles(), [])
        let developed = try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/faults/rose-png.png"))
        XCTAssertEqual(developed.width, 70)
    }

    /// SIGTERM with thousands of entries queued and every download running: out within a
    /// second, interrupted entries journaled, and the next start finishes the rest.
    func testSIGTERMMidRunStopsWithinASecondAndARestartFinishesExactlyOnce() throws {
        server.route("/slow.jpg", .delayed(seconds: 0.4, .bytes(fixture("jpeg-420.jpg"))))
        server.route("/hang.jpg", .hangBeforeHeaders)
        let daemon = try site.startDaemon(["--download-concurrency", "8", "--filter-concurrency", "2"])
        var photos: [String: String] = [:]
        for i in 0..<40 { photos[String(format: "slow%02d", i)] = server.url("/slow.jpg?\(i)") }
        try site.drop("work", photos)
        var many: [String: String] = [:]
        for i in 0..<2000 { many["h\(i)"] = server.url("/hang.jpg?\(i)") }
        try site.drop("backlog", many)
        XCTAssertTrue(site.waitFor { $0.filter { $0.event == .entryFiltered }.count >= 4 }, site.daemonLog())
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .manifestClaimed && $0.manifest == "backlog" } })
        let seconds = site.stop(daemon)
        XCTAssertFalse(daemon.isRunning)
        XCTAssertEqual(daemon.terminationStatus, 0, site.daemonLog())
        XCTAssertLessThan(seconds, 1.5, "SPEC §5: within one second")
        print("SIGTERM → exit: \(Int(seconds * 1000)) ms with 2,040 entries claimed")
        let first = site.records()
        XCTAssertEqual(first.last?.event, .daemonStopped)
        XCTAssertTrue(first.contains { $0.event == .entryCancelled && $0.string("reason") == "shutdown" })
        XCTAssertFalse(first.contains { $0.event == .manifestFinished })

        server.route("/hang.jpg", .bytes(fixture("png-rgb8-7x5.png"), contentType: "image/png"))
        try site.startDaemon(["--download-concurrency", "16"])
        XCTAssertTrue(site.waitFor(timeout: 90) { records in
            records.filter { $0.event == .manifestFinished }.count == 2
        }, site.daemonLog(1))
        assertEveryEntryFilteredExactlyOnce(["work": 40, "backlog": 2000])
    }

    func testSIGKILLMidRunThenRestartLosesNothing() throws {
        server.route("/slow.jpg", .delayed(seconds: 0.2, .bytes(fixture("png-rose-im.png"), contentType: "image/png")))
        let daemon = try site.startDaemon(["--download-concurrency", "4", "--filter-concurrency", "1"])
        var photos: [String: String] = [:]
        for i in 0..<30 { photos[String(format: "p%02d", i)] = server.url("/slow.jpg?\(i)") }
        try site.drop("killed", photos)
        XCTAssertTrue(site.waitFor { $0.filter { $0.event == .entryFiltered }.count >= 5 })
        _ = site.stop(daemon, signal: SIGKILL)
        XCTAssertFalse(site.records().contains { $0.event == .manifestFinished })

        try site.startDaemon()
        XCTAssertTrue(site.waitFor(timeout: 40) { $0.contains { $0.event == .manifestFinished } }, site.daemonLog(1))
        assertEveryEntryFilteredExactlyOnce(["killed": 30])
    }

    func testTwoDaemonsOnOneInboxClaimEachManifestOnce() throws {
        server.route("/a.jpg", .delayed(seconds: 0.05, .bytes(fixture("jpeg-420.jpg"))))
        let one = try site.startDaemon()
        let two = try site.startDaemon()
        for m in 0..<20 {
            try site.drop(String(format: "m%02d", m), Dictionary(uniqueKeysWithValues: (0..<3).map { ("p\($0)", server.url("/a.jpg?\(m)-\($0)")) }))
        }
        XCTAssertTrue(site.waitFor(timeout: 60) { $0.filter { $0.event == .manifestFinished }.count == 20 })
        let claims = site.records().filter { $0.event == .manifestClaimed }
        XCTAssertEqual(claims.count, 20, "each manifest claimed exactly once")
        XCTAssertEqual(Set(claims.compactMap(\.manifest)).count, 20)
        let byDaemon = Dictionary(grouping: claims, by: \.pid).mapValues(\.count)
        print("claims per daemon: \(byDaemon)")
        XCTAssertTrue(Set(byDaemon.keys).isSubset(of: [one.processIdentifier, two.processIdentifier]))
        assertEveryEntryFilteredExactlyOnce(Dictionary(uniqueKeysWithValues: (0..<20).map { (String(format: "m%02d", $0), 3) }))
    }

    func testLinkLocalAddressesAreAlwaysRefusedAndPrivateOnesOnRequest() throws {
        server.route("/ok.jpg", .bytes(fixture("jpeg-420.jpg")))
        server.route("/to-metadata", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
        try site.startDaemon(["--timeout", "2", "--retries", "0"])
        try site.drop("ssrf", [
            "metadata": "http://169.254.169.254/latest/meta-data/", "redirected": server.url("/to-metadata"),
            "ipv6": "http://[fe80::1]/x.jpg", "ok": server.url("/ok.jpg"),
        ])
        XCTAssertTrue(site.waitFor { $0.contains { $0.event == .manifestFinished } }, site.daemonLog())
        let result = try site.result("ssrf")
        for entry in ["metadata", "redirected", "ipv6"] {
            XCTAssertTrue(result.entries[entry]?.error?.hasPrefix("address-not-allowed: ") ?? false, "\(entry): \(String(describing: result.entries[entry]))")
        }
        XCTAssertEqual(result.entries["ok"]?.state, .filtered, "loopback is allowed by default")

        let strict = Site()
        try strict.startDaemon(["--deny-private-networks", "--retries", "0"])
        try strict.drop("strict", ["ok": server.url("/ok.jpg")])
        XCTAssertTrue(strict.waitFor { $0.contains { $0.event == .manifestFinished } }, strict.daemonLog())
        XCTAssertTrue(try strict.result("strict").entries["ok"]?.error?.hasPrefix("address-not-allowed: ") ?? false)
        XCTAssertEqual(server.requestCount("/ok.jpg"), 1, "the refused request never reached the server")
    }

    /// Every entry of each manifest filtered exactly once across all runs, every output
    /// decodes, no temporary file is left, and the result lists them all.
    private func assertEveryEntryFilteredExactlyOnce(_ manifests: [String: Int], file: StaticString = #filePath, line: UInt = #line) {
        let records = site.records()
        for (manifest, count) in manifests {
            let filtered = records.filter { $0.event == .entryFiltered && $0.manifest == manifest }.compactMap(\.entry)
            XCTAssertEqual(filtered.count, count, "\(manifest): filtered events", file: file, line: line)
            XCTAssertEqual(Set(filtered).count, count, "\(manifest): an entry was filtered twice", file: file, line: line)
            guard let result = try? site.result(manifest) else {
                XCTFail("\(manifest): no result.plist", file: file, line: line)
                continue
            }
            XCTAssertEqual(result.counts.filtered + result.counts.skipped, count, "\(manifest)", file: file, line: line)
            for entry in result.entries.values {
                guard let output = entry.output else { continue }
                XCTAssertNoThrow(
                    try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/\(manifest)/\(output)")), file: file, line: line)
            }
        }
        XCTAssertEqual(site.temporaryFiles(), [], file: file, line: line)
    }
}
