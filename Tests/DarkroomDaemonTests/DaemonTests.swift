import DarkroomCore
@testable import DarkroomDaemon
import DarkroomImaging
import DarkroomNetwork
import Foundation
import XCTest

final class DaemonTests: XCTestCase {
    private var harness: DaemonHarness!

    override func setUpWithError() throws {
        harness = try DaemonHarness()
    }

    override func tearDown() {
        if let daemon = harness.daemon, !harness.journal.contains(where: { $0.event == .daemonStopped }) {
            daemon.stop()
            harness.waitFor(timeout: 5) { $0.contains { $0.event == .daemonStopped } }
        }
        harness = nil
    }

    /// The tutorial's ClassicPhotosDictionary.plist shape: name → URL, two entries "NO URL".
    func testClassicManifestNoURLEntriesFailAndTheRestAreFiltered() throws {
        let photos = ["Angkor": "jpeg-420.jpg", "Bangkok": "png-rgb8.png", "Colours": "png-rgba8.png", "Dune": "jpeg-progressive.jpg"]
        var manifest: [String: String] = ["Cat": "NO URL", "Dog": "NO URL"]
        for (name, file) in photos {
            let url = "http://photos.test/\(file)"
            harness.downloader.answer(url, .bytes(fixtureData(file)))
            manifest[name] = url
        }
        try harness.start()
        try harness.drop("classic", manifest)
        XCTAssertTrue(harness.waitForFinished("classic"))

        let result = try harness.result("classic")
        XCTAssertEqual(result.counts.filtered, 4)
        XCTAssertEqual(result.counts.failed, 2)
        XCTAssertEqual(result.entries["Cat"]?.state, .failed)
        XCTAssertTrue(result.entries["Cat"]?.error?.hasPrefix("invalid-url: ") ?? false, "\(String(describing: result.entries["Cat"]))")
        XCTAssertEqual(result.entries["Angkor"]?.output, "Angkor.jpg")
        XCTAssertEqual(result.entries["Bangkok"]?.output, "Bangkok.png")
        XCTAssertEqual(harness.files(in: "classic"), ["Angkor.jpg", "Bangkok.png", "Colours.png", "Dune.jpg", "result.plist"])
        // The outputs are the filtered images.
        let developed = try ImageDecoder.decode(ByteStream.reading(path: harness.outbox.appendingPathComponent("classic/Bangkok.png").path))
        let source = try ImageDecoder.decode(ByteStream.reading(data: fixtureData("png-rgb8.png")))
        var expected = source
        try SepiaFilter(amount: 0.8).apply(to: &expected)
        XCTAssertEqual(developed, expected)
        // The manifest left the inbox; its claim is gone once finished.
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.inbox.appendingPathComponent("classic.plist").path))
        // manifest.finished is journaled first (the durable point), then the claim is removed.
        let claimFolder = harness.daemon.inbox.claimFolder
        let deadline = Date().addingTimeInterval(5)
        while (try? FileManager.default.contentsOfDirectory(atPath: claimFolder))?.isEmpty == false && Date() < deadline {
            usleep(5_000)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: claimFolder), [])
        // Every event of an entry's life was journaled in order.
        let angkor = harness.journal.filter { $0.entry == "Angkor" }.map(\.event)
        XCTAssertEqual(angkor, [.entryQueued, .entryDownloading, .entryDownloaded, .entryFiltering, .entryFiltered])
        let finished = try XCTUnwrap(harness.events(.manifestFinished, manifest: "classic").first)
        XCTAssertEqual(finished[field: "counts"], .object([
            JournalField("filtered", .int(4)), JournalField("failed", .int(2)),
            JournalField("skipped", .int(0)), JournalField("cancelled", .int(0)),
        ]))
    }

    func testEntryErrorsCarryTheirCodes() throws {
        harness.downloader.answer("http://x.test/404", .failure(.http(status: 404, reason: "Not Found", retryAfter: nil)))
        harness.downloader.answer("http://x.test/html", .bytes(Data("<html>nope</html>".utf8)))
        harness.downloader.answer("http://x.test/truncated", .bytes(fixtureData("bad-jpeg-truncated.jpg")))
        harness.downloader.answer("http://x.test/big", .bytes(fixtureData("bomb-png-60000x60000.png")))
        harness.downloader.answer("http://x.test/ok", .bytes(fixtureData("jpeg-444.jpg")))
        try harness.start()
        try harness.drop("errors", [
            "missing": "http://x.test/404", "html": "http://x.test/html", "truncated": "http://x.test/truncated",
            "bomb": "http://x.test/big", "ok": "http://x.test/ok", "ftp": "ftp://x.test/a.jpg",
        ])
        XCTAssertTrue(harness.waitForFinished("errors"))
        let result = try harness.result("errors")
        func code(_ entry: String) -> String? { result.entries[entry]?.error?.components(separatedBy: ":").first }
        XCTAssertEqual(code("missing"), "http-404")
        XCTAssertEqual(code("html"), "not-an-image")
        XCTAssertEqual(code("truncated"), "decode")
        XCTAssertEqual(code("bomb"), "too-many-pixels")
        XCTAssertEqual(code("ftp"), "scheme-not-allowed")
        XCTAssertEqual(result.entries["ok"]?.state, .filtered)
        XCTAssertEqual(result.counts.failed, 5)
        // A 404 is not retried; nothing temporary is left.
        XCTAssertEqual(harness.downloader.callCount("http://x.test/404"), 1)
        XCTAssertEqual(harness.files(in: "errors"), ["ok.jpg", "result.plist"])
    }

    func testTransientFailuresAreRetriedThenSucceed() throws {
        let url = "http://x.test/flaky"
        harness.downloader.answer(url, .flaky(
            failures: [.http(status: 500, reason: "Internal Server Error", retryAfter: nil), .timeout("no byte for 30 s")],
            then: fixtureData("jpeg-420.jpg")))
        harness.downloader.answer("http://x.test/down", .failure(.connection("connection refused")))
        try harness.start { $0.retries = 2 }
        try harness.drop("flaky", ["a": url, "b": "http://x.test/down"])
        XCTAssertTrue(harness.waitForFinished("flaky"))
        XCTAssertEqual(harness.downloader.callCount(url), 3)
        XCTAssertEqual(harness.downloader.callCount("http://x.test/down"), 3, "1 attempt + 2 retries")
        let retries = harness.events(.entryRetrying, manifest: "flaky").filter { $0.entry == "a" }
        XCTAssertEqual(retries.map { $0.int("attempt") }, [2, 3])
        XCTAssertTrue(retries[0].string("error")?.hasPrefix("http-500") ?? false)
        let result = try harness.result("flaky")
        XCTAssertEqual(result.entries["a"]?.state, .filtered)
        XCTAssertTrue(result.entries["b"]?.error?.hasPrefix("connection: ") ?? false)
    }

    /// With one filter at a time, a high-priority manifest dropped later overtakes the
    /// low-priority entries that have not started.
    func testHigherPriorityManifestDroppedLaterOvertakesWaitingWork() throws {
        for i in 0..<12 { harness.downloader.answer("http://x.test/low\(i)", .bytes(fixtureData("png-rose-im.png"))) }
        for i in 0..<3 { harness.downloader.answer("http://x.test/high\(i)", .bytes(fixtureData("png-rose-im.png"))) }
        try harness.start {
            $0.filterConcurrency = 1
            $0.downloadConcurrency = 1
        }
        daemonSuspend(true)
        var low: [[String: Any]] = []
        for i in 0..<12 { low.append(["name": String(format: "low%02d", i), "url": "http://x.test/low\(i)"]) }
        try harness.drop("bulk", ["priority": "low", "photos": low])
        XCTAssertTrue(harness.waitFor { $0.filter { $0.event == .entryQueued && $0.manifest == "bulk" }.count == 12 })
        try harness.drop("urgent", ["priority": "veryHigh", "photos": (0..<3).map { ["name": "high\($0)", "url": "http://x.test/high\($0)"] }])
        XCTAssertTrue(harness.waitFor { $0.filter { $0.event == .entryQueued && $0.manifest == "urgent" }.count == 3 })
        daemonSuspend(false)
        XCTAssertTrue(harness.waitForFinished("bulk"))
        XCTAssertTrue(harness.waitForFinished("urgent"))
        let order = harness.events(.entryFiltering).compactMap(\.entry)
        // Only the entries already admitted into the window (at most window = 1 + 2) may run before.
        let firstHigh = try XCTUnwrap(order.firstIndex { $0.hasPrefix("high") })
        XCTAssertLessThanOrEqual(firstHigh, harness.daemon.configuration.admissionWindow, "\(order)")
        XCTAssertEqual(order.filter { $0.hasPrefix("high") }, ["high0", "high1", "high2"])
        let lowOrder = order.filter { $0.hasPrefix("low") }
        XCTAssertEqual(lowOrder, lowOrder.sorted(), "equal priorities run in arrival order")
    }

    private func daemonSuspend(_ suspended: Bool) {
        // What SIGUSR1/SIGUSR2 do; signals would reach every daemon in this test process.
        harness.daemon.setPaused(suspended)
    }

    func testCancelFileCancelsOnlyThatManifest() throws {
        for i in 0..<6 { harness.downloader.answer("http://x.test/slow\(i)", .slow(seconds: 30, fixtureData("jpeg-420.jpg"))) }
        harness.downloader.answer("http://x.test/ok", .bytes(fixtureData("jpeg-420.jpg")))
        try harness.start()
        try harness.drop("doomed", Dictionary(uniqueKeysWithValues: (0..<6).map { ("p\($0)", "http://x.test/slow\($0)") }))
        try harness.drop("kept", ["ok": "http://x.test/ok"])
        XCTAssertTrue(harness.waitFor { $0.contains { $0.event == .entryDownloading && $0.manifest == "doomed" } })
        try harness.dropRaw("doomed.cancel", Data())
        XCTAssertTrue(harness.waitForFinished("doomed", timeout: 5))
        XCTAssertTrue(harness.waitForFinished("kept"))
        let result = try harness.result("doomed")
        XCTAssertEqual(result.counts.cancelled, 6)
        XCTAssertEqual(harness.events(.manifestCancelled, manifest: "doomed").count, 1)
        XCTAssertEqual(harness.events(.entryCancelled, manifest: "doomed").compactMap { $0.string("reason") }, Array(repeating: "manifest-cancelled", count: 6))
        XCTAssertEqual(try harness.result("kept").counts.filtered, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.inbox.appendingPathComponent("doomed.cancel").path))
        XCTAssertEqual(harness.files(in: "doomed"), ["result.plist"])
    }

    func testResubmissionSkipsUnchangedEntriesAndRedoesTheOthers() throws {
        harness.downloader.answer("http://x.test/a", .bytes(fixtureData("jpeg-420.jpg")))
        harness.downloader.answer("http://x.test/b", .failure(.http(status: 503, reason: "Service Unavailable", retryAfter: nil)))
        harness.downloader.answer("http://x.test/c", .bytes(fixtureData("png-rgb8.png")))
        try harness.start { $0.retries = 0 }
        try harness.drop("again", ["photos": ["a": "http://x.test/a", "b": "http://x.test/b", "c": "http://x.test/c"]])
        XCTAssertTrue(harness.waitForFinished("again"))
        XCTAssertEqual(try harness.result("again").counts.failed, 1)

        // The server is back; c's settings change (intensity), a is unchanged.
        harness.downloader.answer("http://x.test/b", .bytes(fixtureData("jpeg-444.jpg")))
        try harness.drop("again", ["photos": [
            ["name": "a", "url": "http://x.test/a"], ["name": "b", "url": "http://x.test/b"],
            ["name": "c", "url": "http://x.test/c", "intensity": 0.3],
        ]])
        XCTAssertTrue(harness.waitForFinished("again", count: 2))
        let result = try harness.result("again")
        XCTAssertEqual(result.entries["a"]?.state, .skipped)
        XCTAssertEqual(result.entries["b"]?.state, .filtered)
        XCTAssertEqual(result.entries["c"]?.state, .filtered)
        XCTAssertEqual(harness.downloader.callCount("http://x.test/a"), 1, "a was not downloaded again")
        XCTAssertEqual(harness.downloader.callCount("http://x.test/c"), 2)
        XCTAssertEqual(harness.files(in: "again"), ["a.jpg", "b.jpg", "c.png", "result.plist"])
    }

    func testAManifestThatCannotBeReadIsRejectedAndTheDaemonGoesOn() throws {
        harness.downloader.answer("http://x.test/ok", .bytes(fixtureData("jpeg-420.jpg")))
        try harness.start()
        try harness.dropRaw("garbage.plist", Data("this is not a plist".utf8))
        try harness.dropRaw("list.plist", try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0))
        try harness.drop("good", ["ok": "http://x.test/ok"])
        XCTAssertTrue(harness.waitForFinished("good"))
        XCTAssertTrue(harness.waitFor { $0.filter { $0.event == .manifestRejected }.count == 2 })
        let rejected = harness.inbox.appendingPathComponent("rejected")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: rejected.path).sorted(),
            ["garbage.plist", "garbage.reason.txt", "list.plist", "list.reason.txt"])
        let reason = try String(contentsOf: rejected.appendingPathComponent("list.reason.txt"), encoding: .utf8)
        XCTAssertTrue(reason.contains("array"), reason)
        XCTAssertEqual(harness.events(.manifestRejected, manifest: "list").first?.string("error"), reason.trimmingCharacters(in: .newlines))
    }

    func testHostileNamesStayInsideTheManifestFolder() throws {
        harness.downloader.answer("http://x.test/ok", .bytes(fixtureData("jpeg-420.jpg")))
        try harness.start()
        let names = ["../../etc/passwd", "/abs", ".hidden", "a/b", "a_b", "tab\there", String(repeating: "é", count: 300)]
        try harness.drop("hostile", Dictionary(uniqueKeysWithValues: names.map { ($0, "http://x.test/ok") }))
        XCTAssertTrue(harness.waitForFinished("hostile"))
        let result = try harness.result("hostile")
        XCTAssertEqual(result.counts.filtered, names.count)
        let files = harness.files(in: "hostile").filter { $0 != "result.plist" }
        XCTAssertEqual(files.count, names.count)
        XCTAssertEqual(Set(files).count, names.count)
        XCTAssertTrue(files.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") && $0.utf8.count < 200 }, "\(files)")
        XCTAssertEqual(Set(result.entries.values.compactMap(\.output)), Set(files))
        // Nothing escaped: the outbox holds only the journal and the manifest folder.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: harness.outbox.path).sorted(), ["hostile", "journal.jsonl"])
    }

    /// A 2,000-entry manifest never has more than the admission window in flight.
    func testInFlightWorkIsBoundedWhateverTheManifestSize() throws {
        let image = fixtureData("png-rgb8-7x5.png")
        var photos: [String: String] = [:]
        for i in 0..<2000 {
            harness.downloader.answer("http://x.test/\(i)", .bytes(image))
            photos["p\(i)"] = "http://x.test/\(i)"
        }
        let bound = harness.configuration().admissionWindow
        let sampler = InFlightSampler()
        try harness.start()
        sampler.start { [harness] in harness!.daemon.status.inFlight }
        try harness.drop("large", photos)
        XCTAssertTrue(harness.waitForFinished("large", timeout: 60))
        sampler.stop()
        XCTAssertEqual(try harness.result("large").counts.filtered, 2000)
        XCTAssertLessThanOrEqual(sampler.peak, bound)
        XCTAssertGreaterThan(sampler.peak, 0)
        XCTAssertLessThanOrEqual(harness.downloader.peakConcurrency, harness.configuration().downloadConcurrency)
    }

    /// 40 manifests dropped at once: every one is claimed (a manifest skipped by a scan as
    /// too fresh used to wait for the next full rescan) and every result lists every entry
    /// (entries admitted by several threads at once used, rarely, to let a manifest complete
    /// before one of them reported).
    func testEveryResultListsEveryEntryWhenManyManifestsRunAtOnce() throws {
        for m in 0..<40 {
            for i in 0..<7 { harness.downloader.answer("http://x.test/ok?\(m)-\(i)", .bytes(fixtureData("png-rgb8-7x5.png"))) }
        }
        try harness.start { $0.downloadConcurrency = 8; $0.filterConcurrency = 2 }
        for m in 0..<40 {
            try harness.drop("m\(m)", Dictionary(uniqueKeysWithValues: (0..<7).map { ("p\($0)", "http://x.test/ok?\(m)-\($0)") }))
        }
        XCTAssertTrue(harness.waitFor(timeout: 60) { $0.filter { $0.event == .manifestFinished }.count == 40 })
        for m in 0..<40 {
            let result = try harness.result("m\(m)")
            XCTAssertEqual(result.counts.filtered, 7, "m\(m): \(result.entries.keys.sorted())")
        }
    }

    /// Stopping cancels what runs; the next start finishes the manifest without redoing
    /// anything that was complete, and leaves no temporary file.
    func testStopThenRestartFinishesEverythingExactlyOnce() throws {
        for i in 0..<8 { harness.downloader.answer("http://x.test/\(i)", .slow(seconds: i < 3 ? 0 : 0.3, fixtureData("jpeg-420.jpg"))) }
        try harness.start { $0.downloadConcurrency = 2; $0.filterConcurrency = 1 }
        try harness.drop("resume", Dictionary(uniqueKeysWithValues: (0..<8).map { ("p\($0)", "http://x.test/\($0)") }))
        XCTAssertTrue(harness.waitFor { $0.filter { $0.event == .entryFiltered }.count >= 3 })
        let started = Date()
        harness.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        let filteredBefore = Set(harness.events(.entryFiltered).compactMap(\.entry))
        XCTAssertFalse(harness.journal.contains { $0.event == .manifestFinished })

        let second = try DaemonHarness(root: harness.root)
        for i in 0..<8 { second.downloader.answer("http://x.test/\(i)", .bytes(fixtureData("jpeg-420.jpg"))) }
        try second.start()
        XCTAssertTrue(second.waitForFinished("resume"))
        let skipped = Set(second.events(.entrySkipped).compactMap(\.entry))
        let filteredAfter = Set(second.events(.entryFiltered).compactMap(\.entry))
        XCTAssertEqual(skipped, filteredBefore, "complete entries are skipped, not redone")
        XCTAssertTrue(filteredAfter.isDisjoint(with: filteredBefore))
        XCTAssertEqual(skipped.union(filteredAfter).count, 8)
        XCTAssertEqual(second.files(in: "resume").count, 9, "\(second.files(in: "resume"))")
        second.stop()
    }
}

/// Samples a value on a background thread and keeps the peak.
final class InFlightSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var maximum = 0
    private let done = DispatchSemaphore(value: 0)

    func start(_ sample: @escaping @Sendable () -> Int) {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let value = sample()
                lock.withLock { maximum = max(maximum, value) }
                usleep(200)
            }
            done.signal()
        }
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }

    var peak: Int { lock.withLock { maximum } }
}
