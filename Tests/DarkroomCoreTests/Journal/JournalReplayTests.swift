@testable import DarkroomCore
import XCTest

final class JournalReplayTests: XCTestCase {
    private var clock = Date(timeIntervalSince1970: 1_795_243_200)

    private func record(_ event: JournalEvent, _ manifest: String? = "m", _ entry: String? = nil, host: String = "a", _ fields: [JournalField] = []) -> JournalRecord {
        clock += 0.001
        return JournalRecord(time: clock, event: event, host: host, pid: 10, manifest: manifest, entry: entry, fields: fields)
    }

    private func done(_ event: JournalEvent, _ entry: String, url: String, settings: String = "intensity=0.8 format=source quality=90", output: String? = nil) -> JournalRecord {
        record(event, "m", entry, [JournalField("url", .string(url)), JournalField("settings", .string(settings)), JournalField("output", .string(output ?? entry + ".jpg"))])
    }

    func testClaimCrashReclaimKeepsCompletedAndResetsStates() throws {
        var replay = JournalReplay()
        replay.apply(record(.daemonStarted, nil))
        replay.apply(record(.manifestClaimed, "m", nil, [JournalField("priority", "normal"), JournalField("entries", 3)]))
        for name in ["a", "b", "c"] { replay.apply(record(.entryQueued, "m", name)) }
        replay.apply(record(.entryDownloading, "m", "a"))
        replay.apply(record(.entryDownloaded, "m", "a"))
        replay.apply(record(.entryFiltering, "m", "a"))
        replay.apply(done(.entryFiltered, "a", url: "http://h/a"))
        replay.apply(record(.entryDownloading, "m", "b"))
        // SIGKILL here: no more lines.

        var manifest = try XCTUnwrap(replay.manifests["m"])
        XCTAssertEqual(manifest.claims, 1)
        XCTAssertFalse(manifest.isFinished)
        XCTAssertTrue(manifest.needsResume)
        XCTAssertEqual(manifest.entries["a"], ReplayedEntry(state: .filtered, completed: CompletedOutput(url: "http://h/a", settings: "intensity=0.8 format=source quality=90", output: "a.jpg")))
        XCTAssertEqual(manifest.entries["b"], ReplayedEntry(state: .downloading))
        XCTAssertEqual(manifest.entries["c"], ReplayedEntry(state: .queued))
        XCTAssertEqual(replay.manifestsNeedingResume, ["m"])

        // The next start claims it again.
        replay.apply(record(.daemonStarted, nil))
        replay.apply(record(.manifestClaimed, "m"))
        manifest = try XCTUnwrap(replay.manifests["m"])
        XCTAssertEqual(manifest.claims, 2)
        XCTAssertFalse(manifest.isFinished)
        XCTAssertEqual(manifest.entries.mapValues(\.state), ["a": .queued, "b": .queued, "c": .queued])
        XCTAssertEqual(manifest.entries["a"]?.completed?.output, "a.jpg", "the output on disk is still known")
        XCTAssertNil(manifest.entries["b"]?.completed)
    }

    func testFinishedManifest() throws {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed))
        replay.apply(done(.entryFiltered, "a", url: "http://h/a"))
        replay.apply(done(.entrySkipped, "b", url: "http://h/b"))
        replay.apply(record(.entryFailed, "m", "c", [JournalField("error", "http-404: server answered 404 Not Found")]))
        replay.apply(record(.manifestFinished, "m", nil, [JournalField("counts", ResultCounts(filtered: 1, failed: 1, skipped: 1, cancelled: 0).journalValue)]))
        let manifest = try XCTUnwrap(replay.manifests["m"])
        XCTAssertTrue(manifest.isFinished)
        XCTAssertFalse(manifest.needsResume)
        XCTAssertEqual(manifest.entries.mapValues(\.state), ["a": .filtered, "b": .skipped, "c": .failed])
        XCTAssertEqual(manifest.entries["b"]?.completed?.url, "http://h/b")
        XCTAssertTrue(replay.manifestsNeedingResume.isEmpty)

        // Re-submitted: not finished any more until the new run finishes.
        replay.apply(record(.manifestClaimed))
        XCTAssertFalse(replay.manifests["m"]!.isFinished)
        XCTAssertEqual(replay.manifests["m"]!.claims, 2)
        replay.apply(record(.manifestFinished))
        XCTAssertTrue(replay.manifests["m"]!.isFinished)
    }

    func testFailureOrCancellationAfterFilteredKeepsCompleted() throws {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed))
        replay.apply(done(.entryFiltered, "a", url: "http://h/a", output: "a.png"))
        replay.apply(record(.manifestFinished))
        replay.apply(record(.manifestClaimed))
        replay.apply(record(.entryDownloading, "m", "a"))
        replay.apply(record(.entryRetrying, "m", "a", [JournalField("attempt", 2), JournalField("error", "timeout: slow"), JournalField("delay_ms", 500)]))
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.state, .downloading)
        replay.apply(record(.entryFailed, "m", "a", [JournalField("error", "timeout: slow")]))
        XCTAssertEqual(replay.manifests["m"]?.entries["a"], ReplayedEntry(state: .failed, completed: CompletedOutput(url: "http://h/a", settings: "intensity=0.8 format=source quality=90", output: "a.png")))
        replay.apply(record(.entryCancelled, "m", "a", [JournalField("reason", "shutdown")]))
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.state, .cancelled)
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.completed?.output, "a.png")
    }

    func testANewerCompletedOutputReplacesTheOlder() {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed))
        replay.apply(done(.entryFiltered, "a", url: "http://h/old"))
        replay.apply(record(.manifestClaimed))
        replay.apply(done(.entryFiltered, "a", url: "http://h/new", settings: "intensity=0.5 format=png quality=90", output: "a.png"))
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.completed, CompletedOutput(url: "http://h/new", settings: "intensity=0.5 format=png quality=90", output: "a.png"))
    }

    func testFilteredWithoutTheFieldsSetsOnlyTheState() {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed))
        replay.apply(record(.entryFiltered, "m", "a", [JournalField("url", "http://h/a")]))
        XCTAssertEqual(replay.manifests["m"]?.entries["a"], ReplayedEntry(state: .filtered, completed: nil))
    }

    func testOnlyManifestsFilter() {
        var replay = JournalReplay(onlyManifests: ["keep"])
        replay.apply(record(.manifestClaimed, "keep"))
        replay.apply(record(.manifestClaimed, "drop"))
        replay.apply(done(.entryFiltered, "a", url: "http://h/a"))
        replay.apply(record(.entryQueued, "keep", "x"))
        replay.apply(record(.entryQueued, "drop", "y"))
        XCTAssertEqual(Set(replay.manifests.keys), ["keep"])
        XCTAssertEqual(replay.manifests["keep"]?.entries.keys.sorted(), ["x"])
        XCTAssertEqual(replay.onlyManifests, ["keep"])
        XCTAssertNil(JournalReplay().onlyManifests)
        XCTAssertEqual(JournalReplay(onlyManifests: nil).onlyManifests, nil)
    }

    func testOtherHostsAreAppliedToo() {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed, "m", nil, host: "a"))
        replay.apply(record(.manifestClaimed, "m", nil, host: "b"))
        replay.apply(JournalRecord(event: .entryFiltered, host: "b", pid: 2, manifest: "m", entry: "e",
                                   fields: [JournalField("url", "u"), JournalField("settings", "s"), JournalField("output", "o")]))
        replay.apply(record(.manifestFinished, "m", nil, host: "b"))
        XCTAssertEqual(replay.manifests["m"]?.claims, 2)
        XCTAssertEqual(replay.manifests["m"]?.isFinished, true)
        XCTAssertEqual(replay.manifests["m"]?.entries["e"]?.completed, CompletedOutput(url: "u", settings: "s", output: "o"))
    }

    func testRejectedAndCancelledManifests() {
        var replay = JournalReplay()
        replay.apply(record(.manifestClaimed, "bad"))
        replay.apply(record(.manifestRejected, "bad", nil, [JournalField("error", "the root is an array; a manifest is a dictionary")]))
        replay.apply(record(.manifestClaimed, "stop"))
        replay.apply(record(.manifestCancelled, "stop"))
        XCTAssertEqual(replay.manifests["bad"]?.isRejected, true)
        XCTAssertEqual(replay.manifests["bad"]?.needsResume, false)
        XCTAssertEqual(replay.manifests["stop"]?.isCancelled, true)
        XCTAssertEqual(replay.manifestsNeedingResume, ["stop"], "a cancelled manifest still has to journal its finish")
        replay.apply(record(.manifestClaimed, "bad"))
        XCTAssertEqual(replay.manifests["bad"]?.isRejected, false)
    }

    func testEntryEventsWithoutAClaimOrWithoutAnEntryName() {
        // A rotated journal may start in the middle of a manifest.
        var replay = JournalReplay()
        replay.apply(record(.entryFiltering, "m", "a"))
        replay.apply(record(.entryQueued, "m", nil))
        XCTAssertEqual(replay.manifests["m"]?.claims, 0)
        XCTAssertEqual(replay.manifests["m"]?.entries.count, 1)
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.state, .filtering)
        XCTAssertFalse(replay.manifests["m"]!.needsResume)
    }

    func testInitFromRecordsIsTheSameAsApplyingThem() {
        let records = [record(.manifestClaimed), record(.entryQueued, "m", "a"), done(.entryFiltered, "a", url: "u"), record(.manifestFinished)]
        var applied = JournalReplay()
        for item in records { applied.apply(item) }
        XCTAssertEqual(JournalReplay(records: records).manifests, applied.manifests)
    }

    func testReplayFromEncodedLinesIncludingATornLastLine() {
        let records = [record(.manifestClaimed), record(.entryQueued, "m", "a"), done(.entryFiltered, "a", url: "u"), record(.entryQueued, "m", "b")]
        var journal = records.flatMap { $0.encodedLine() }
        let torn = record(.entryFiltered, "m", "b").encodedLine()
        journal += torn.prefix(torn.count / 2)
        let lines = journal.split(separator: 0x0A, omittingEmptySubsequences: true)
        let replay = JournalReplay(records: lines.compactMap { JournalRecord(line: $0) })
        XCTAssertEqual(replay.manifests["m"]?.entries["a"]?.state, .filtered)
        XCTAssertEqual(replay.manifests["m"]?.entries["b"]?.state, .queued)
    }

    func testEntryStateFinality() {
        XCTAssertEqual([EntryState.queued, .downloading, .downloaded, .filtering, .filtered, .skipped, .failed, .cancelled].map(\.isFinal),
                       [false, false, false, false, true, true, true, true])
    }
}
