import DarkroomCore
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import Foundation
import XCTest

/// The outbox on a small tmpfs that fills up mid-run.
final class FullDiskTests: XCTestCase {
    func testAFullOutboxFailsEntriesWithWriteAndAResubmissionCompletesOnceSpaceIsFreed() throws {
        let site = Site()
        try FileManager.default.createDirectory(atPath: site.outbox, withIntermediateDirectories: true)
        try mountTmpfs(at: site.outbox, size: "3m")
        defer { _ = run("/bin/umount", ["-l", site.outbox]) }
        // Ballast leaves ~700 KB: room for some of the outputs, not all.
        let ballast = "\(site.outbox)/ballast"
        var info = statvfs()
        statvfs(site.outbox, &info)
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        FileManager.default.createFile(atPath: ballast, contents: Data(repeating: 1, count: free - 700 * 1024))

        let server = try FaultServer.start()
        defer { server.shutdown() }
        let photo = ByteStream.writingToMemory()
        var pixels = [UInt8](repeating: 0, count: 480 * 360 * 3)
        var random = SeededGenerator(seed: 11)
        for i in pixels.indices { pixels[i] = UInt8.random(in: 0...255, using: &random) }  // noise compresses badly
        try ImageEncoder.encode(Image(width: 480, height: 360, channels: 3, pixels: pixels), as: .jpeg, to: photo)
        server.route("/p.jpg", .bytes(photo.writtenBytes()))
        let photos = Dictionary(uniqueKeysWithValues: (0..<16).map { (String(format: "p%02d", $0), server.url("/p.jpg?\($0)")) })

        try site.startDaemon(["--download-concurrency", "2", "--filter-concurrency", "1", "--retries", "0"])
        try site.drop("full", photos)
        XCTAssertTrue(site.waitForResult("full", timeout: 60), site.daemonLog())
        let first = try site.result("full")
        print("full disk: \(photo.writtenBytes().count) bytes per photo; \(first.counts)")
        XCTAssertGreaterThan(first.counts.filtered, 0)
        XCTAssertGreaterThan(first.counts.failed, 0, "the disk never filled: make the photo larger")
        for (name, entry) in first.entries where entry.state == .failed {
            XCTAssertTrue(entry.error?.hasPrefix("write: ") ?? false, "\(name): \(entry.error ?? "")")
            XCTAssertTrue(entry.error?.contains("No space left on device") ?? false, "\(name): \(entry.error ?? "")")
        }
        for (name, entry) in first.entries where entry.state == .filtered {
            XCTAssertNoThrow(try ImageDecoder.decode(ByteStream.reading(path: "\(site.outbox)/full/\(entry.output!)")), name)
        }
        XCTAssertEqual(site.temporaryFiles(), [], "nothing partial is left")
        let unreadable = journalLines(site).filter { JournalRecord(line: Array($0.utf8)) == nil }
        print("full disk: \(unreadable.count) journal lines cut short")
        XCTAssertTrue(unreadable.allSatisfy { !$0.contains("}{") }, "a cut line ran into the next")

        // Space freed, the same manifest dropped again: the failed entries are made, the rest skipped.
        try FileManager.default.removeItem(atPath: ballast)
        try site.drop("full", photos)
        XCTAssertTrue(site.waitFor(timeout: 60) { $0.filter { $0.event == .manifestFinished && $0.manifest == "full" }.count == 2 }, site.daemonLog())
        let second = try site.result("full")
        XCTAssertEqual(second.counts.failed, 0, "\(second.entries.filter { $0.value.state == .failed })")
        XCTAssertEqual(second.counts.skipped, first.counts.filtered)
        XCTAssertEqual(second.counts.filtered, first.counts.failed)
        XCTAssertEqual(server.requestCount("/p.jpg"), 16 + first.counts.failed)
        XCTAssertEqual(site.temporaryFiles(), [])
    }

    private func journalLines(_ site: Site) -> [Substring] {
        let text = (try? String(contentsOfFile: site.journalPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
    }

    private func mountTmpfs(at path: String, size: String) throws {
        guard geteuid() == 0 else { throw XCTSkip("mounting a tmpfs needs root; run the tests as root to check a full disk") }
        let (status, output) = run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", path])
        guard status == 0 else { throw XCTSkip("cannot mount a tmpfs here (\(output.trimmingCharacters(in: .whitespacesAndNewlines)))") }
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return (-1, "\(tool) cannot be run") }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
