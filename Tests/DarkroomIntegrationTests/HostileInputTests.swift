import DarkroomCore
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

/// The hostile-input matrix: one manifest per family (URLs, servers, images, names,
/// manifests) against the real binary and a fault-injecting server on 127.0.0.1. Each case
/// gets its SPEC §4 code, the rest of the manifest is unaffected, nothing is written
/// outside the site's inbox and outbox, and the daemon still processes new work afterwards.
final class HostileInputTests: XCTestCase {
    private var server: FaultServer!
    private var site: Site!

    override func setUpWithError() throws {
        server = try FaultServer.start()
        server.route("/rose.jpg", .bytes(fixture("jpeg-420.jpg")))
        site = Site()
    }

    override func tearDown() {
        site = nil
        server.shutdown()
    }

    func testURLFamily() throws {
        try site.startDaemon(["--retries", "0", "--connect-timeout", "2", "--timeout", "2"])
        let port = server.port
        try site.drop("urls", [
            "no-url": "NO URL",
            "empty": "",
            "relative": "photos/rose.jpg",
            "javascript": "javascript:alert(document.cookie)",
            "file": "file:///etc/passwd",
            "ftp": "ftp://127.0.0.1:\(port)/rose.jpg",
            "userinfo": "http://127.0.0.1@evil.invalid/rose.jpg",
            "userinfo-port": "http://127.0.0.1:\(port)@evil.invalid/rose.jpg",
            "long": server.url("/rose.jpg?" + String(repeating: "a", count: 10_000)),
            "idn": "http://bücher.invalid/rose.jpg",
            "port-0": "http://127.0.0.1:0/rose.jpg",
            "port-99999": "http://127.0.0.1:99999/rose.jpg",
            "ok": server.url("/rose.jpg"),
        ])
        let result = try finished("urls")
        XCTAssertEqual(code(result, "no-url"), "invalid-url")
        XCTAssertEqual(code(result, "empty"), "invalid-url")
        XCTAssertEqual(code(result, "relative"), "invalid-url")
        XCTAssertEqual(code(result, "javascript"), "scheme-not-allowed")
        XCTAssertEqual(code(result, "file"), "scheme-not-allowed", "file:// needs --allow-file-urls")
        XCTAssertEqual(code(result, "ftp"), "scheme-not-allowed")
        XCTAssertEqual(code(result, "userinfo"), "invalid-url")
        XCTAssertEqual(code(result, "userinfo-port"), "invalid-url")
        XCTAssertEqual(code(result, "long"), "invalid-url")
        // A valid IDN host (punycode xn--bcher-kva.invalid) that does not resolve.
        XCTAssertEqual(code(result, "idn"), "connection")
        XCTAssertEqual(code(result, "port-0"), "invalid-url")
        XCTAssertEqual(code(result, "port-99999"), "invalid-url")
        XCTAssertEqual(code(result, "ok"), "filtered")
        XCTAssertEqual(server.requestCount("/rose.jpg"), 1, "no refused URL reached the server")
        XCTAssertTrue(result.entries["userinfo"]?.error?.contains("credentials") ?? false, "\(String(describing: result.entries["userinfo"]))")
        try assertConfinedAndAlive()
    }

    func testServerFamily() throws {
        let jpeg = fixture("jpeg-420.jpg")
        server.route("/rose.png", .bytes(fixture("png-rose-im.png"), contentType: "image/png"))
        server.route("/404", .status(404))
        server.route("/410", .status(410))
        server.route("/500", .status(500))
        server.route("/503-then-200", .sequence([.status(503), .bytes(fixture("jpeg-444.jpg"))]))
        server.route("/429", .sequence([.retryAfter(status: 429, seconds: 1), .bytes(jpeg)]))
        server.route("/loop", .redirect(to: "/loop"))
        server.route("/to-ftp", .redirect(to: "ftp://127.0.0.1/rose.jpg"))
        server.route("/to-metadata", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
        server.route("/hang", .hangBeforeHeaders)
        server.route("/stall", .hangAfter(bytes: jpeg.prefix(500), declaredLength: 5000))
        server.route("/trickle", .trickle(jpeg, bytesPerChunk: 10, interval: 2))
        server.route("/endless", .endless(chunk: Data(repeating: 0xFF, count: 8192)))
        server.route("/longer", .lyingLength(jpeg.prefix(600), declaredLength: jpeg.count))
        server.route("/shorter", .lyingLength(jpeg, declaredLength: 600))
        server.route("/gzip-bomb", .gzipBomb(decompressedSize: 200 << 20))
        server.route("/html", .bytes(Data("<html><body>not a photo</body></html>".utf8), contentType: "image/jpeg"))
        try site.startDaemon(["--timeout", "1", "--retries", "2", "--max-download-bytes", "300000"])
        let paths = [
            "rose-png": "/rose.png", "rose-jpg": "/rose.jpg", "404": "/404", "410": "/410", "500": "/500",
            "503-then-200": "/503-then-200", "429": "/429", "loop": "/loop", "to-ftp": "/to-ftp",
            "to-metadata": "/to-metadata", "hang": "/hang", "stall": "/stall", "trickle": "/trickle",
            "endless": "/endless", "longer": "/longer", "shorter": "/shorter", "gzip-bomb": "/gzip-bomb", "html": "/html",
        ]
        // The bomb (~200 KB inflating to 200 MiB) is stored as sent, under the byte cap,
        // and refused as not an image: nothing ever inflates it.
        try site.drop("servers", paths.mapValues { server.url($0) })
        let result = try finished("servers", timeout: 60)
        let expected = [
            "rose-png": "filtered", "rose-jpg": "filtered", "404": "http-404", "410": "http-410", "500": "http-500",
            "503-then-200": "filtered", "429": "filtered", "loop": "invalid-url", "to-ftp": "scheme-not-allowed",
            "to-metadata": "address-not-allowed", "hang": "timeout", "stall": "timeout", "trickle": "timeout",
            "endless": "too-large", "longer": "connection", "shorter": "decode", "gzip-bomb": "not-an-image",
            "html": "not-an-image",
        ]
        for (entry, want) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(code(result, entry), want, "\(entry): \(result.entries[entry]?.error ?? "")")
        }
        XCTAssertEqual(server.requestCount("/500"), 3, "500 is retried, then given up")
        XCTAssertEqual(server.requestCount("/404"), 1, "a 4xx is not retried")
        XCTAssertEqual(server.requestCount("/410"), 1)
        XCTAssertEqual(server.requestCount("/503-then-200"), 2)
        XCTAssertEqual(server.requestCount("/429"), 2)
        XCTAssertEqual(server.requestCount("/hang"), 3, "a timeout is retried")
        XCTAssertLessThanOrEqual(server.requestCount("/loop"), 6, "a loop is stopped at the first repeat or the hop limit")
        let retried = site.records().filter { $0.event == .entryRetrying && $0.entry == "429" }
        XCTAssertEqual(retried.count, 1)
        XCTAssertGreaterThanOrEqual(retried.first?.int("delay_ms") ?? 0, 1000, "Retry-After: 1 is honoured")
        try assertConfinedAndAlive()
    }

    func testImageFamily() throws {
        // A 100×100 image: a few hundred bytes, far within the byte cap, but 10,000 pixels.
        let wide = ByteStream.writingToMemory()
        try ImageEncoder.encode(
            Image(width: 100, height: 100, channels: 3, pixels: [UInt8](repeating: 200, count: 30_000)), as: .png, to: wide)
        var random = SeededGenerator(seed: 5)
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
        let images: [String: (Data, String)] = [
            "truncated": (fixture("bad-jpeg-truncated.jpg"), "image/jpeg"),
            "garbage-after-eoi": (fixture("jpeg-trailing-garbage.jpg"), "image/jpeg"),
            "cmyk": (fixture("jpeg-cmyk-adobe.jpg"), "image/jpeg"),
            "one-pixel": (fixture("png-rgba8-1x1.png"), "image/png"),
            "rgba16": (fixture("png-rgba16.png"), "image/png"),
            "bomb-png": (fixture("bomb-png-60000x60000.png"), "image/png"),
            "over-max-pixels": (wide.writtenBytes(), "image/png"),
            "random": (noise, "image/jpeg"),
        ]
        for (name, (bytes, type)) in images { server.route("/\(name)", .bytes(bytes, contentType: type)) }
        try site.startDaemon(["--max-pixels", "5000", "--retries", "0"])
        try site.drop("images", Dictionary(uniqueKeysWithValues: images.keys.map { ($0, server.url("/\($0)")) }))
        let result = try finished("images")
        XCTAssertEqual(code(result, "truncated"), "decode")
        XCTAssertEqual(code(result, "garbage-after-eoi"), "filtered")
        XCTAssertEqual(code(result, "cmyk"), "filtered")
        XCTAssertEqual(code(result, "one-pixel"), "filtered")
        XCTAssertEqual(code(result, "rgba16"), "filtered")
        XCTAssertEqual(code(result, "bomb-png"), "too-many-pixels")
        XCTAssertEqual(code(result, "over-max-pixels"), "too-many-pixels")
        XCTAssertEqual(code(result, "random"), "not-an-image")
        let rgba = try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/images/rgba16.png"))
        XCTAssertEqual([rgba.width, rgba.height, rgba.channels], [24, 16, 4], "16-bit RGBA keeps its alpha")
        let original = try ImageDecoder.decode(ByteStream.reading(data: fixture("png-rgba16.png")))
        XCTAssertEqual(stride(from: 3, to: rgba.pixels.count, by: 4).map { rgba.pixels[$0] },
                       stride(from: 3, to: original.pixels.count, by: 4).map { original.pixels[$0] })
        let dot = try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/images/one-pixel.png"))
        XCTAssertEqual([dot.width, dot.height], [1, 1])
        let cmyk = try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/images/cmyk.jpg"))
        XCTAssertEqual([cmyk.width, cmyk.height, cmyk.channels], [70, 46, 3])
        try assertConfinedAndAlive()
    }

    func testNameFamily() throws {
        try site.startDaemon()
        let url = server.url("/rose.jpg")
        let longName = String(repeating: "é", count: 500)  // 1,000 UTF-8 bytes
        let names = [
            "../../etc/x", "/abs", ".hidden", "a/b", "a_b", "tab\there", "nul\u{0}byte", "bell\u{7}\u{1b}[31m",
            longName, "..", "x/../../y",
        ]
        var photos: [[String: Any]] = names.map { ["name": $0, "url": url] }
        photos.append(["name": "twice", "url": url])
        photos.append(["name": "twice", "url": server.url("/rose.jpg?second")])
        // Binary: XML cannot carry NUL or most control characters.
        let data = try PropertyListSerialization.data(fromPropertyList: ["photos": photos], format: .binary, options: 0)
        try site.drop(name: "names", data: data)
        let result = try finished("names")
        for name in names {
            XCTAssertEqual(result.entries[name]?.state, .filtered, "\(name.debugDescription)")
        }
        let outputs = names.compactMap { result.entries[$0]?.output }
        XCTAssertEqual(Set(outputs).count, names.count, "names that collide after sanitising get distinct files")
        for output in outputs {
            XCTAssertFalse(output.contains("/"), output)
            XCTAssertFalse(output.hasPrefix("."), output)
            XCTAssertFalse(output.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, output.debugDescription)
            XCTAssertLessThanOrEqual(output.utf8.count, 255)
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(site.outbox)/names/\(output)"), output)
        }
        XCTAssertEqual(result.entries["a_b"]?.output, "a_b.jpg", "an unaltered name is kept as it is")
        // The first of two entries named alike is processed, the second fails on its own.
        XCTAssertEqual(result.entries["twice"]?.state, .filtered)
        XCTAssertEqual(server.requestCount("/rose.jpg"), names.count + 1, "the duplicate was not downloaded")
        let duplicate = site.records().filter { $0.event == .entryFailed && $0.entry == "twice" }
        XCTAssertEqual(duplicate.count, 1)
        XCTAssertTrue(duplicate.first?.string("error")?.hasPrefix("invalid-entry: ") ?? false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/abs"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/abs.jpg"))
        try assertConfinedAndAlive()
    }

    func testManifestFamily() throws {
        try site.startDaemon(["--retries", "0"])
        let inbox = URL(fileURLWithPath: site.inbox)
        let url = server.url("/rose.jpg")
        // Outside the inbox: a file a symbolic link in the inbox points to.
        let outside = site.root.appendingPathComponent("secret.plist")
        let secret = try PropertyListSerialization.data(fromPropertyList: ["stolen": url], format: .xml, options: 0)
        try secret.write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: inbox.appendingPathComponent("link.plist").path, withDestinationPath: outside.path)

        try Data("this is not a property list".utf8).write(to: inbox.appendingPathComponent("text.plist"))
        try PropertyListSerialization.data(fromPropertyList: [url, url], format: .xml, options: 0)
            .write(to: inbox.appendingPathComponent("array.plist"))
        try Data().write(to: inbox.appendingPathComponent("empty.plist"))
        let nested = String(repeating: "<array>", count: 1000) + String(repeating: "</array>", count: 1000)
        try Data("<?xml version=\"1.0\"?><plist version=\"1.0\">\(nested)</plist>".utf8)
            .write(to: inbox.appendingPathComponent("nested.plist"))
        var huge = Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict>".utf8)
        let padding = Data("<!-- \(String(repeating: "x", count: 1_000_000)) -->".utf8)
        while huge.count < 20_000_000 { huge.append(padding) }
        huge.append(Data("</dict></plist>".utf8))
        try huge.write(to: inbox.appendingPathComponent("huge.plist"))
        try site.drop(name: "binary", data: PropertyListSerialization.data(fromPropertyList: ["one": url, "two": url + "?2"], format: .binary, options: 0))

        let rejected = ["link", "text", "array", "empty", "nested", "huge"]
        XCTAssertTrue(site.waitFor(timeout: 30) { records in
            Set(records.filter { $0.event == .manifestRejected }.compactMap(\.manifest)).isSuperset(of: rejected)
                && records.contains { $0.event == .manifestFinished && $0.manifest == "binary" }
        }, site.daemonLog())
        for name in rejected {
            let reason = try String(contentsOfFile: "\(site.inbox)/rejected/\(name).reason.txt", encoding: .utf8)
            XCTAssertFalse(reason.isEmpty, name)
            XCTAssertTrue(site.records().contains { $0.event == .manifestRejected && $0.manifest == name && !($0.string("error") ?? "").isEmpty }, name)
        }
        XCTAssertEqual(try site.result("binary").counts.filtered, 2)
        // The link was moved aside as a link; its target is untouched and was never read.
        let moved = "\(site.inbox)/rejected/link.plist"
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: moved), outside.path)
        XCTAssertEqual(try Data(contentsOf: outside), secret)
        XCTAssertFalse(site.records().contains { $0.manifest == "secret" || $0.entry == "stolen" })
        XCTAssertEqual(server.requestCount("/rose.jpg"), 2)
        try assertConfinedAndAlive(extra: ["secret.plist"])
    }

    /// A writer that rewrites the manifest in place while the daemon claims it: whatever
    /// was claimed mid-write, the last complete version is processed in full.
    func testManifestRewrittenWhileBeingClaimed() throws {
        try site.startDaemon()
        let path = "\(site.inbox)/rewritten.plist"
        var last: [String: String] = [:]
        for round in 0..<20 {
            last = Dictionary(uniqueKeysWithValues: (0...(round % 5)).map { ("p\($0)", server.url("/rose.jpg?\(round)-\($0)")) })
            let data = try PropertyListSerialization.data(fromPropertyList: last, format: .xml, options: 0)
            // In place and in two halves, so a reader may catch it half written.
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            data.withUnsafeBytes { raw in
                let half = raw.count / 2
                _ = write(fd, raw.baseAddress!, half)
                usleep(useconds_t.random(in: 0...3_000))
                _ = write(fd, raw.baseAddress! + half, raw.count - half)
            }
            close(fd)
            usleep(useconds_t.random(in: 0...20_000))
        }
        // The final version: done when a finished result lists exactly its entries.
        XCTAssertTrue(site.waitFor(timeout: 30) { _ in
            (try? self.site.result("rewritten")).map { Set($0.entries.keys) == Set(last.keys) && $0.entries.values.allSatisfy { $0.state == .filtered || $0.state == .skipped } } ?? false
        }, site.daemonLog())
        let result = try site.result("rewritten")
        for (name, url) in last where result.entries[name]?.state == .filtered {
            XCTAssertEqual(result.entries[name]?.url, url)
        }
        let records = site.records().filter { $0.manifest == "rewritten" }
        print("rewritten 20 times: \(records.filter { $0.event == .manifestClaimed }.count) claims, "
              + "\(records.filter { $0.event == .manifestRejected }.count) rejected half written, "
              + "\(records.filter { $0.event == .manifestFinished }.count) finished")
        // Every claim ended: nothing stays claimed or in progress. (A version caught half
        // written is rejected without a claim line: a writer that rewrites in place, instead
        // of renaming, can be read mid-write; its last complete version still wins.)
        XCTAssertTrue(site.waitFor(timeout: 10) { records in
            let mine = records.filter { $0.manifest == "rewritten" }
            return mine.filter { $0.event == .manifestClaimed }.count == mine.filter { $0.event == .manifestFinished }.count
        })
        let claimed = (try? FileManager.default.subpathsOfDirectory(atPath: "\(site.inbox)/.darkroom/claimed")) ?? []
        XCTAssertFalse(claimed.contains { $0.hasSuffix("rewritten.plist") }, "\(claimed)")
        try assertConfinedAndAlive()
    }

    /// 100,000 entries in one manifest: all processed, the daemon's peak memory bounded.
    func testHundredThousandEntriesWithBoundedMemory() throws {
        // In memory when it can be (/dev/shm): this test is about the daemon's memory, and
        // 100,000 fsynced files would make it a disk benchmark.
        let shm = URL(fileURLWithPath: "/dev/shm")
        if access(shm.path, W_OK) == 0 { site = Site(base: shm) }
        let tiny = site.root.appendingPathComponent("tiny.png")
        try FileManager.default.createDirectory(at: site.root, withIntermediateDirectories: true)
        try fixture("png-rgba8-1x1.png").write(to: tiny)
        let count = 100_000
        let daemon = try site.startDaemon(["--allow-file-urls", "--download-concurrency", "16"])
        var photos: [String: String] = [:]
        photos.reserveCapacity(count)
        for i in 0..<count { photos["p\(i)"] = "file://\(tiny.path)" }
        try site.drop("hundred-thousand", photos)
        let started = Date()
        var peak = 0
        // Polls for result.plist: re-reading a journal of 600,000 lines would cost more than the daemon.
        while Date().timeIntervalSince(started) < 600 && !site.hasResult("hundred-thousand") {
            peak = max(peak, residentPeakKiB(daemon.processIdentifier))
            sleep(1)
        }
        peak = max(peak, residentPeakKiB(daemon.processIdentifier))
        let result = try site.result("hundred-thousand")
        XCTAssertEqual(result.counts.filtered, count)
        print("100,000 entries: \(Int(Date().timeIntervalSince(started))) s, peak RSS \(peak / 1024) MiB")
        // A sanitizer's shadow memory is part of the resident set: only the count holds there.
        if ProcessInfo.processInfo.environment["DARKROOM_SANITIZER"] == nil {
            XCTAssertLessThan(peak, 256 * 1024, "peak RSS \(peak) KiB: ~2 KB per entry of the manifest in progress is expected")
        }
        try assertConfinedAndAlive(extra: ["tiny.png"])
    }

    // MARK: Helpers

    private func finished(_ manifest: String, timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line) throws -> ManifestResult {
        XCTAssertTrue(site.waitFor(timeout: timeout) { $0.contains { $0.event == .manifestFinished && $0.manifest == manifest } },
                      site.daemonLog(), file: file, line: line)
        return try site.result(manifest)
    }

    private func code(_ result: ManifestResult, _ entry: String) -> String? {
        guard let error = result.entries[entry]?.error else { return result.entries[entry]?.state.rawValue }
        return String(error.prefix { $0 != ":" })
    }

    /// Nothing outside the site's inbox and outbox (besides the daemons' logs and `extra`),
    /// no temporary file left, and a new manifest is still processed.
    private func assertConfinedAndAlive(extra: Set<String> = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let top = Set(try FileManager.default.contentsOfDirectory(atPath: site.root.path))
        let allowed: Set<String> = ["inbox", "outbox"]
        let unexpected = top.subtracting(allowed).subtracting(extra).filter { !($0.hasPrefix("daemon-") && $0.hasSuffix(".log")) }
        XCTAssertEqual(unexpected, [], "written outside the inbox and outbox", file: file, line: line)
        XCTAssertEqual(site.temporaryFiles(), [], file: file, line: line)
        let sentinel = "alive-\(UUID().uuidString.prefix(8))"
        try site.drop(sentinel, ["photo": server.url("/rose.jpg?\(sentinel)")])
        XCTAssertTrue(site.waitForResult(sentinel, timeout: 20), "the daemon no longer processes work\n\(site.daemonLog())", file: file, line: line)
        XCTAssertEqual(try site.result(sentinel).counts.filtered, 1, file: file, line: line)
    }
}

/// The peak resident set (VmHWM) of a process, in KiB; 0 once it has gone.
func residentPeakKiB(_ pid: pid_t) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}
