import DarkroomCore
import DarkroomStorage
import Foundation
import DarkroomTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class InboxTests: XCTestCase {
    private var root: String!
    private var inbox: Inbox!

    private static let manifestText = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>a</key><string>http://example.com/a.jpg</string></dict></plist>
        """

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "inbox-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        inbox = Inbox(folder: "\(root!)/inbox", host: "test-host")
        try inbox.prepare()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: Helpers

    @discardableResult
    private func drop(_ name: String, _ text: String = InboxTests.manifestText, in folder: String? = nil) -> String {
        let path = "\(folder ?? inbox.folder)/\(name)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), path)
        return path
    }

    private func setModified(_ path: String, secondsAgo: Double) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-secondsAgo)], ofItemAtPath: path)
    }

    private func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether some open file description holds an exclusive `flock` on `path`.
    private func isLocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }

    /// Takes an exclusive lock on `path` from a new open file description, as another daemon would.
    private func holdLock(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("open", path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StorageError("flock", path: path, errno: errno)
        }
        return fd
    }

    private func claimed(_ outcome: Inbox.ClaimOutcome, file: StaticString = #filePath, line: UInt = #line) -> ClaimedManifest? {
        if case .claimed(let claim) = outcome { return claim }
        XCTFail("expected a claim, got \(describe(outcome))", file: file, line: line)
        return nil
    }

    private func describe(_ outcome: Inbox.ClaimOutcome) -> String {
        switch outcome {
        case .claimed(let claim): "claimed(\(claim.name))"
        case .lost: "lost"
        case .busy: "busy"
        case .refused(let reason): "refused(\(reason))"
        }
    }

    private func refusal(_ outcome: Inbox.ClaimOutcome) -> String? {
        if case .refused(let reason) = outcome { return reason }
        return nil
    }

    private func claimFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: inbox.claimFolder)) ?? []).sorted()
    }

    // MARK: prepare

    func testPrepareCreatesTheFoldersWithAGroupWritableSetgidInbox() throws {
        for folder in [inbox.folder, inbox.claimFolder, inbox.rejectedFolder] {
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), folder)
            XCTAssertTrue(isDirectory.boolValue, folder)
        }
        XCTAssertEqual(inbox.claimFolder, "\(inbox.folder)/.darkroom/claimed/test-host")
        XCTAssertEqual(inbox.rejectedFolder, "\(inbox.folder)/rejected")
        // Whatever the umask: users of the daemon's group drop files here.
        for folder in [inbox.folder, inbox.rejectedFolder] {
            var info = stat()
            XCTAssertEqual(stat(folder, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, 0o2775, "\(folder): \(String(info.st_mode & 0o7777, radix: 8))")
        }
    }

    func testPrepareIsIdempotentAndKeepsTheModeOfAnExistingInbox() throws {
        let folder = "\(root!)/existing"
        XCTAssertEqual(mkdir(folder, 0o700), 0)
        XCTAssertEqual(chmod(folder, 0o700), 0)
        let existing = Inbox(folder: folder, host: "h")
        try existing.prepare()
        try existing.prepare()
        var info = stat()
        XCTAssertEqual(stat(folder, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o700, "an administrator's choice is left alone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: existing.claimFolder))
    }

    // MARK: scan

    func testScanListsOnlyManifestsAndIgnoresTemporaryHiddenAndOtherFiles() throws {
        for name in [
            "a.plist", ".hidden.plist", "b.plist.tmp", "c.plist.part", "d.tmp", "e.part", "notes.txt",
            "f.PLIST", "plist", ".plist", "g.plist", ".darkroom-Ab12Cd.tmp",
        ] {
            drop(name)
        }
        try FileManager.default.createDirectory(atPath: "\(inbox.folder)/sub", withIntermediateDirectories: true)
        drop("inner.plist", in: "\(inbox.folder)/sub")
        let listing = inbox.scan()
        XCTAssertEqual(Set(listing.manifests), ["a.plist", "g.plist"])
        XCTAssertEqual(listing.cancels, [])
    }

    func testScanListsCancelRequestsSortedWithoutTheirSuffix() throws {
        drop("zeta.cancel", "")
        drop("alpha.cancel", "")
        drop(".hidden.cancel", "")
        drop("beta.cancel.tmp", "")
        drop("alpha.plist")
        let listing = inbox.scan()
        XCTAssertEqual(listing.cancels, ["alpha", "zeta"])
        XCTAssertEqual(listing.manifests, ["alpha.plist"])
    }

    func testScanListsTheOldestFirstAndNamesBreakTies() throws {
        try setModified(drop("new.plist"), secondsAgo: 10)
        try setModified(drop("old.plist"), secondsAgo: 300)
        try setModified(drop("middle.plist"), secondsAgo: 100)
        let now = Date().addingTimeInterval(-50)
        for name in ["tie-b.plist", "tie-a.plist"] {
            try FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: drop(name))
        }
        XCTAssertEqual(inbox.scan().manifests, ["old.plist", "middle.plist", "tie-a.plist", "tie-b.plist", "new.plist"])
    }

    func testScanLeavesFilesModifiedWithinTheSettleTime() throws {
        drop("fresh.plist")
        try setModified(drop("settled.plist"), secondsAgo: 60)
        XCTAssertEqual(inbox.scan(settleTime: 30).manifests, ["settled.plist"])
        XCTAssertEqual(Set(inbox.scan(settleTime: 0).manifests), ["fresh.plist", "settled.plist"])
        // Cancel requests act at once, whatever their age.
        drop("fresh.cancel", "")
        XCTAssertEqual(inbox.scan(settleTime: 30).cancels, ["fresh"])
    }

    func testScanOfAMissingInboxIsEmpty() {
        let missing = Inbox(folder: "\(root!)/nowhere", host: "h")
        XCTAssertEqual(missing.scan().manifests, [])
        XCTAssertEqual(missing.scan().cancels, [])
    }

    func testScanDoesNotListClaimedOrRejectedManifests() throws {
        drop("a.plist")
        drop("b.plist")
        let claim = claimed(inbox.claim(fileName: "a.plist"))
        try inbox.reject(path: "\(inbox.folder)/b.plist", name: "b", reason: "bad")
        XCTAssertEqual(inbox.scan().manifests, [])
        claim?.finish()
    }

    // MARK: claim

    func testClaimMovesTheManifestIntoTheClaimFolderAndLocksIt() throws {
        drop("photos.plist")
        guard let claim = claimed(inbox.claim(fileName: "photos.plist")) else { return }
        XCTAssertEqual(claim.name, "photos")
        XCTAssertEqual(claim.path, "\(inbox.claimFolder)/photos.plist")
        XCTAssertFalse(exists("\(inbox.folder)/photos.plist"))
        XCTAssertFalse(inbox.isWaiting(name: "photos"))
        XCTAssertEqual(claimFiles(), ["photos.plist"])
        XCTAssertTrue(isLocked(claim.path), "the claim is locked while it is held")
        XCTAssertEqual(String(decoding: try claim.read(limit: 1 << 20), as: UTF8.self), Self.manifestText)
        claim.finish()
    }

    func testClaimOfAVanishedFileIsLost() {
        guard case .lost = inbox.claim(fileName: "gone.plist") else {
            return XCTFail("expected lost")
        }
        XCTAssertEqual(claimFiles(), [])
    }

    func testClaimOfAFileAnotherDaemonIsClaimingIsLost() throws {
        let path = drop("a.plist")
        let other = try holdLock(path)
        defer { close(other) }
        guard case .lost = inbox.claim(fileName: "a.plist") else {
            return XCTFail("expected lost while another open file description holds the lock")
        }
        XCTAssertTrue(exists(path), "left for the daemon holding it")
        XCTAssertEqual(claimFiles(), [])
    }

    func testClaimIsBusyWhileAClaimOfTheSameNameIsHeld() throws {
        drop("a.plist", "first")
        guard let first = claimed(inbox.claim(fileName: "a.plist")) else { return }
        drop("a.plist", "second")
        guard case .busy = inbox.claim(fileName: "a.plist") else {
            return XCTFail("expected busy")
        }
        // Nothing was replaced: the new version waits, the claim still holds the first.
        XCTAssertEqual(contents("\(inbox.folder)/a.plist"), "second")
        XCTAssertEqual(String(decoding: try first.read(limit: 100), as: UTF8.self), "first")
        XCTAssertTrue(inbox.isWaiting(name: "a"))
        first.finish()
        guard let second = claimed(inbox.claim(fileName: "a.plist")) else { return }
        XCTAssertEqual(String(decoding: try second.read(limit: 100), as: UTF8.self), "second")
        second.finish()
    }

    func testClaimRefusesASymbolicLinkToAManifestOutsideTheInboxWithoutFollowingIt() throws {
        let outside = drop("secret.plist", "outside content", in: root)
        XCTAssertEqual(symlink(outside, "\(inbox.folder)/evil.plist"), 0)
        let outcome = inbox.claim(fileName: "evil.plist")
        let reason = try XCTUnwrap(refusal(outcome), describe(outcome))
        XCTAssertTrue(reason.contains("symbolic link"), reason)
        XCTAssertEqual(claimFiles(), [], "nothing was claimed")
        XCTAssertEqual(contents(outside), "outside content")
        XCTAssertTrue(exists(outside))
        XCTAssertFalse(isLocked(outside), "the target was never opened and locked")

        // The daemon moves the link itself aside; its target stays where it was.
        try inbox.reject(path: "\(inbox.folder)/evil.plist", name: "evil", reason: reason)
        var info = stat()
        XCTAssertEqual(lstat("\(inbox.rejectedFolder)/evil.plist", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK, "the link was moved, not the file it points to")
        XCTAssertEqual(contents(outside), "outside content")
    }

    func testClaimRefusesSymbolicLinksInsideTheInboxAndDanglingOnes() throws {
        drop("real.plist")
        XCTAssertEqual(symlink("real.plist", "\(inbox.folder)/alias.plist"), 0)
        XCTAssertEqual(symlink("\(root!)/missing.plist", "\(inbox.folder)/dangling.plist"), 0)
        XCTAssertNotNil(refusal(inbox.claim(fileName: "alias.plist")))
        XCTAssertNotNil(refusal(inbox.claim(fileName: "dangling.plist")))
        XCTAssertTrue(inbox.isWaiting(name: "real"))
    }

    func testClaimRefusesAFifoWithoutBlocking() throws {
        let path = "\(inbox.folder)/pipe.plist"
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        let inbox = self.inbox!
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<String?>(nil)
        DispatchQueue.global().async {
            let outcome = inbox.claim(fileName: "pipe.plist")
            if case .refused(let reason) = outcome { result.set(reason) } else { result.set("not refused") }
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut {
            // Unblock the stuck open() so the thread can end, then fail.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            _ = done.wait(timeout: .now() + 5)
            return XCTFail("claiming a fifo blocked")
        }
        let reason = try XCTUnwrap(result.get())
        XCTAssertTrue(reason.contains("not a regular file"), reason)
        XCTAssertEqual(claimFiles(), [])
    }

    func testClaimRefusesADirectory() throws {
        try FileManager.default.createDirectory(atPath: "\(inbox.folder)/folder.plist", withIntermediateDirectories: false)
        let reason = try XCTUnwrap(refusal(inbox.claim(fileName: "folder.plist")))
        XCTAssertTrue(reason.contains("not a regular file"), reason)
        XCTAssertEqual(claimFiles(), [])
    }

    func testClaimRefusesNamesThatAreNotManifests() {
        for name in ["notes.txt", ".hidden.plist", "a.plist.tmp", "a.plist.part", "sub/a.plist", ".plist", "../a.plist"] {
            XCTAssertNotNil(refusal(inbox.claim(fileName: name)), name)
        }
        XCTAssertEqual(claimFiles(), [])
    }

    // MARK: ClaimedManifest

    func testReadReturnsTheBytesAndCanBeRepeated() throws {
        drop("a.plist", "0123456789")
        guard let claim = claimed(inbox.claim(fileName: "a.plist")) else { return }
        defer { claim.finish() }
        XCTAssertEqual(try claim.read(limit: 10), Data("0123456789".utf8), "exactly the limit is allowed")
        XCTAssertEqual(try claim.read(limit: 100), Data("0123456789".utf8))
    }

    func testReadRefusesMoreThanTheLimitAsARejection() throws {
        drop("a.plist", "0123456789")
        guard let claim = claimed(inbox.claim(fileName: "a.plist")) else { return }
        defer { claim.finish() }
        XCTAssertThrowsError(try claim.read(limit: 9)) { error in
            let rejection = error as? ManifestRejection
            XCTAssertNotNil(rejection, "\(error)")
            XCTAssertTrue(rejection?.message.contains("9") ?? false, "\(error)")
        }
    }

    func testReadOfAManifestLargerThanOneChunk() throws {
        let big = String(repeating: "x", count: 200_000)
        drop("big.plist", big)
        guard let claim = claimed(inbox.claim(fileName: "big.plist")) else { return }
        defer { claim.finish() }
        XCTAssertEqual(try claim.read(limit: 200_000).count, 200_000)
        XCTAssertThrowsError(try claim.read(limit: 70_000)) { XCTAssertTrue($0 is ManifestRejection, "\($0)") }
    }

    func testFinishRemovesTheClaimAndTheLock() throws {
        drop("a.plist")
        guard let claim = claimed(inbox.claim(fileName: "a.plist")) else { return }
        XCTAssertTrue(isLocked(claim.path))
        claim.finish()
        XCTAssertFalse(exists(claim.path))
        XCTAssertEqual(claimFiles(), [])
        claim.finish()  // a second call does no harm
    }

    func testReleaseKeepsTheClaimButDropsTheLock() throws {
        drop("a.plist")
        guard let claim = claimed(inbox.claim(fileName: "a.plist")) else { return }
        claim.release()
        XCTAssertTrue(exists(claim.path))
        XCTAssertFalse(isLocked(claim.path))
        XCTAssertThrowsError(try claim.read(limit: 100), "a released claim has no file to read")
    }

    func testDroppingTheLastReferenceReleasesTheLock() throws {
        drop("a.plist")
        var claim = claimed(inbox.claim(fileName: "a.plist"))
        let path = try XCTUnwrap(claim?.path)
        XCTAssertTrue(isLocked(path))
        claim = nil
        XCTAssertFalse(isLocked(path))
        XCTAssertTrue(exists(path), "the claim stays for the next start")
    }

    // MARK: adoptOrphans

    func testAdoptOrphansTakesClaimsWhoseLockIsFreeAndLeavesHeldOnes() throws {
        let free = drop("free.plist", "free", in: inbox.claimFolder)
        let held = drop("held.plist", "held", in: inbox.claimFolder)
        drop("notes.txt", in: inbox.claimFolder)
        drop(".darkroom-Ab12Cd.tmp", in: inbox.claimFolder)
        let other = try holdLock(held)
        var adopted = inbox.adoptOrphans()
        XCTAssertEqual(adopted.map(\.name), ["free"])
        XCTAssertEqual(adopted.first?.path, free)
        XCTAssertTrue(isLocked(free), "an adopted claim is locked")
        XCTAssertEqual(String(decoding: try adopted[0].read(limit: 100), as: UTF8.self), "free")

        // Nothing is adopted twice while it is held; the other claim once its holder died.
        XCTAssertEqual(inbox.adoptOrphans().map(\.name), [])
        close(other)
        let later = inbox.adoptOrphans()
        XCTAssertEqual(later.map(\.name), ["held"])
        later.forEach { $0.finish() }
        adopted.forEach { $0.finish() }
        adopted.removeAll()
        XCTAssertEqual(claimFiles(), [".darkroom-Ab12Cd.tmp", "notes.txt"])
    }

    func testAClaimReleasedByAStoppedDaemonIsAdoptedByTheNextStart() throws {
        drop("b.plist")
        drop("a.plist")
        let first = try XCTUnwrap(claimed(inbox.claim(fileName: "b.plist")))
        let second = try XCTUnwrap(claimed(inbox.claim(fileName: "a.plist")))
        XCTAssertEqual(Inbox(folder: inbox.folder, host: "test-host").adoptOrphans().count, 0, "held: not orphans")
        first.release()
        second.release()
        let restarted = Inbox(folder: inbox.folder, host: "test-host")
        let adopted = restarted.adoptOrphans()
        XCTAssertEqual(adopted.map(\.name), ["a", "b"], "sorted by name")
        adopted.forEach { $0.finish() }
    }

    func testAdoptOrphansLeavesClaimsOfOtherHosts() throws {
        drop("a.plist")
        let claim = try XCTUnwrap(claimed(inbox.claim(fileName: "a.plist")))
        claim.release()
        let elsewhere = Inbox(folder: inbox.folder, host: "other-host")
        try elsewhere.prepare()
        XCTAssertEqual(elsewhere.adoptOrphans().count, 0)
        XCTAssertEqual(inbox.adoptOrphans().map(\.name), ["a"])
    }

    func testAdoptOrphansWithoutAClaimFolder() {
        XCTAssertEqual(Inbox(folder: "\(root!)/nowhere", host: "h").adoptOrphans().count, 0)
    }

    // MARK: reject, cancel requests

    func testRejectMovesAWaitingManifestAsideAndWritesTheReason() throws {
        drop("bad.plist", "not a plist")
        try inbox.reject(path: "\(inbox.folder)/bad.plist", name: "bad", reason: "not a property list")
        XCTAssertFalse(inbox.isWaiting(name: "bad"))
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.plist"), "not a plist")
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.reason.txt"), "not a property list\n")
    }

    func testRejectMovesAClaimedManifestAside() throws {
        drop("bad.plist", "garbage")
        let claim = try XCTUnwrap(claimed(inbox.claim(fileName: "bad.plist")))
        try inbox.reject(path: claim.path, name: claim.name, reason: "the root is an array")
        claim.release()
        XCTAssertEqual(claimFiles(), [])
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.plist"), "garbage")
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.reason.txt"), "the root is an array\n")
    }

    func testRejectingAgainReplacesTheEarlierRejection() throws {
        drop("bad.plist", "one")
        try inbox.reject(path: "\(inbox.folder)/bad.plist", name: "bad", reason: "first")
        drop("bad.plist", "two")
        try inbox.reject(path: "\(inbox.folder)/bad.plist", name: "bad", reason: "second")
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.plist"), "two")
        XCTAssertEqual(contents("\(inbox.rejectedFolder)/bad.reason.txt"), "second\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: inbox.rejectedFolder).sorted()
        XCTAssertEqual(names, ["bad.plist", "bad.reason.txt"], "no temporary file left")
    }

    func testRejectOfAMissingFileThrows() {
        XCTAssertThrowsError(try inbox.reject(path: "\(inbox.folder)/gone.plist", name: "gone", reason: "x")) { error in
            XCTAssertEqual((error as? StorageError)?.errno, ENOENT, "\(error)")
        }
        XCTAssertFalse(exists("\(inbox.rejectedFolder)/gone.reason.txt"))
    }

    func testRemoveCancelRequestAndIsWaiting() {
        drop("a.cancel", "")
        drop("a.plist")
        XCTAssertTrue(inbox.isWaiting(name: "a"))
        XCTAssertFalse(inbox.isWaiting(name: "b"))
        inbox.removeCancelRequest(name: "a")
        XCTAssertEqual(inbox.scan().cancels, [])
        XCTAssertTrue(inbox.isWaiting(name: "a"), "only the request is removed")
        inbox.removeCancelRequest(name: "missing")  // no harm
    }

    // MARK: Several daemons

    /// Eight claimers with their own `Inbox` values (as eight daemons on one host would
    /// be) race for the same 200 manifests: each is claimed exactly once.
    func testConcurrentClaimersClaimEveryManifestExactlyOnce() throws {
        try raceForManifests(finishAtOnce: false)
    }

    /// The same, with each claim finished as soon as it is taken, so that a slower
    /// claimer may get the lock of a file that was already claimed and finished.
    func testConcurrentClaimersThatFinishAtOnceClaimEveryManifestExactlyOnce() throws {
        try raceForManifests(finishAtOnce: true)
    }

    private func raceForManifests(finishAtOnce: Bool) throws {
        let names = (0..<200).map { String(format: "m%03d.plist", $0) }
        for name in names { drop(name, name) }
        let claimers = 8
        let folder = inbox.folder
        let results = LockedBox<[(claimer: Int, name: String, content: String)]>([])
        let unexpected = LockedBox<[String]>([])
        let held = LockedBox<[ClaimedManifest]>([])
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for claimer in 0..<claimers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let inbox = Inbox(folder: folder, host: "test-host")
                var generator = SeededGenerator(seed: UInt64(claimer + 1))
                start.wait()
                // Claimers start from different places, like daemons reading a folder at different times.
                var order = names.shuffled(using: &generator)
                if claimer % 2 == 0 { order = names }
                for name in order {
                    switch inbox.claim(fileName: name) {
                    case .claimed(let claim):
                        let content = (try? claim.read(limit: 100)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                        results.mutate { $0.append((claimer, claim.name, content)) }
                        if finishAtOnce { claim.finish() } else { held.mutate { $0.append(claim) } }
                    case .lost:
                        break
                    case .busy:
                        unexpected.mutate { $0.append("busy: \(name)") }
                    case .refused(let reason):
                        unexpected.mutate { $0.append("refused: \(name): \(reason)") }
                    }
                }
            }
        }
        for _ in 0..<claimers { start.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)

        let all = results.get()
        XCTAssertEqual(unexpected.get(), [])
        XCTAssertEqual(all.count, names.count, "every manifest claimed once in total")
        var perName: [String: Int] = [:]
        for result in all { perName[result.name + ".plist", default: 0] += 1 }
        XCTAssertEqual(perName.filter { $0.value != 1 }, [:], "claimed more than once")
        XCTAssertEqual(Set(perName.keys), Set(names))
        for result in all { XCTAssertEqual(result.content, result.name + ".plist", "read what was claimed") }
        XCTAssertGreaterThan(Set(all.map(\.claimer)).count, 1, "the claimers did race")
        XCTAssertEqual(inbox.scan().manifests, [], "nothing left waiting")
        XCTAssertEqual(claimFiles().count, finishAtOnce ? 0 : names.count)
        held.get().forEach { $0.finish() }
        XCTAssertEqual(claimFiles(), [])
    }
}

/// A value shared between threads, behind a lock.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
}

