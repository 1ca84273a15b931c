import DarkroomCore
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

/// SIGKILL at random moments, again and again, then a clean run: every entry's output
/// made exactly once, never remade after it was complete, every output whole, no
/// temporary file left, and a journal that reads line by line.
final class CrashConsistencyTests: XCTestCase {
    func testTwelveSIGKILLsInARowLoseNothingAndRedoNothing() throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        // Big enough that kills land while filtering too, not only while downloading.
        let photo = ByteStream.writingToMemory()
        var pixels = [UInt8](repeating: 0, count: 640 * 480 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 7 &+ i / 1920) }
        try ImageEncoder.encode(Image(width: 640, height: 480, channels: 3, pixels: pixels), as: .jpeg, to: photo)
        server.route("/photo.jpg", .delayed(seconds: 0.08, .bytes(photo.writtenBytes())))
        server.route("/rose.png", .delayed(seconds: 0.03, .bytes(fixture("png-rose-im.png"), contentType: "image/png")))

        let site = Site()
        var photos: [String: String] = [:]
        for i in 0..<200 { photos[String(format: "e%03d", i)] = server.url(i % 3 == 0 ? "/rose.png?\(i)" : "/photo.jpg?\(i)") }
        let options = ["--download-concurrency", "4", "--filter-concurrency", "2"]
        try site.startDaemon(options)
        try site.drop("crash", photos)

        var random = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
        var firstInode: [String: UInt64] = [:]
        var kills = 0
        var injectedTornLines = 0
        while kills < 12 || site.hasResult("crash") {
            if site.hasResult("crash") { break }
            usleep(UInt32.random(in: 100_000...500_000, using: &random))
            let daemon = site.lastProcess!
            _ = site.stop(daemon, signal: SIGKILL)
            XCTAssertFalse(daemon.isRunning)
            kills += 1
            // Outputs present now are complete (they appear by rename): remember which file each is.
            for (name, inode) in outputInodes(site) where firstInode[name] == nil { firstInode[name] = inode }
            if kills % 4 == 0 {
                // As a power loss would leave it: a line cut short, no newline.
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: site.journalPath))
                handle.seekToEndOfFile()
                handle.write(Data(#"{"time":"2026-11-21T10:00:00.000Z","event":"entry.filt"#.utf8))
                try handle.close()
                injectedTornLines += 1
            }
            try site.startDaemon(options)
        }
        XCTAssertGreaterThanOrEqual(kills, 10, "the run ended before ten kills: make the work longer")
        XCTAssertTrue(site.waitForResult("crash", timeout: 60), site.daemonLog(kills))
        print("\(kills) SIGKILLs; \(firstInode.count) outputs already complete at some kill")

        let records = site.records()
        XCTAssertEqual(records.filter { $0.event == .manifestFinished && $0.manifest == "crash" }.count, 1)
        let result = try site.result("crash")
        XCTAssertEqual(result.entries.count, 200)
        XCTAssertEqual(result.counts.filtered + result.counts.skipped, 200, "\(result.counts)")
        var filteredEvents: [String: Int] = [:]
        for record in records where record.event == .entryFiltered { filteredEvents[record.entry ?? "", default: 0] += 1 }
        XCTAssertEqual(filteredEvents.filter { $0.value > 1 }, [:], "an entry was filtered twice")

        let final = outputInodes(site)
        XCTAssertEqual(final.count, 200)
        for (name, inode) in firstInode {
            XCTAssertEqual(final[name], inode, "\(name) was remade after it was complete")
        }
        for output in final.keys {
            XCTAssertNoThrow(try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/crash/\(output)")), output)
        }
        XCTAssertEqual(site.temporaryFiles(), [])

        // Line by line: every line is a record but the torn ones injected, each repaired
        // onto a line of its own by the next start.
        let lines = try String(contentsOfFile: site.journalPath, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "the journal ends with a newline")
        let unreadable = lines.dropLast().filter { JournalRecord(line: Array($0.utf8)) == nil }
        XCTAssertEqual(unreadable.count, injectedTornLines, "\(unreadable)")
    }

    /// Output file name → inode, for every output of manifest `crash`.
    private func outputInodes(_ site: Site) -> [String: UInt64] {
        let folder = "\(site.outbox)/crash"
        var inodes: [String: UInt64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where !name.hasPrefix(".") && name != "result.plist" {
            var info = stat()
            if lstat("\(folder)/\(name)", &info) == 0 { inodes[name] = UInt64(info.st_ino) }
        }
        return inodes
    }
}

/// A kill between an output's rename and its `entry.filtered` line leaves a complete
/// output the journal does not know. Its provenance attribute (URL + settings, set
/// before the rename) lets the next run skip it instead of making it again.
final class OutputProvenanceTests: XCTestCase {
    func testACompleteOutputUnknownToTheJournalIsNotMadeAgain() throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        server.route("/a.jpg", .bytes(fixture("jpeg-420.jpg")))
        let site = Site()
        let folder = "\(site.outbox)/lost"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let settings = EntrySettings().fingerprint
        func output(_ name: String, url: String) throws {
            try AtomicFile.write(to: "\(folder)/\(name).jpg", attributes: [Outbox.provenanceAttribute: Outbox.provenance(url: url, settings: settings)]) { fd in
                _ = fixture("jpeg-444.jpg").withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            }
        }
        try output("kept", url: server.url("/a.jpg?kept"))
        try output("other-url", url: server.url("/a.jpg?old"))
        FileManager.default.createFile(atPath: "\(folder)/untagged.jpg", contents: fixture("jpeg-444.jpg"))
        guard AtomicFile.attribute(Outbox.provenanceAttribute, of: "\(folder)/kept.jpg") != nil else {
            throw XCTSkip("this file system has no user extended attributes")
        }
        try site.startDaemon()
        try site.drop("lost", [
            "kept": server.url("/a.jpg?kept"), "other-url": server.url("/a.jpg?new"), "untagged": server.url("/a.jpg?u"),
        ])
        XCTAssertTrue(site.waitForResult("lost"), site.daemonLog())
        let result = try site.result("lost")
        XCTAssertEqual(result.entries["kept"]?.state, .skipped)
        XCTAssertEqual(result.entries["other-url"]?.state, .filtered, "made from another URL: made again")
        XCTAssertEqual(result.entries["untagged"]?.state, .filtered, "no proof it is complete: made again")
        XCTAssertEqual(server.requestCount("/a.jpg"), 2)
        XCTAssertEqual(
            AtomicFile.attribute(Outbox.provenanceAttribute, of: "\(folder)/other-url.jpg"),
            Outbox.provenance(url: server.url("/a.jpg?new"), settings: settings))
    }
}
