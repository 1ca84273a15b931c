import DarkroomCore
import Foundation

/// The manifest parser as `darkroom run` and `darkroom validate` call it, plus what the
/// daemon then does with each entry's strings: the photo's file name (PhotoFileName) and
/// its journal line (JournalRecord), which must read back identical on resume.
///
/// Checked besides the sanitizers: parsing never traps; an accepted manifest parses the
/// same twice (entry order does not depend on hashing); a rejection has a message; entries are indexed 0..<n, within maxEntries;
/// a classic manifest has the normal priority; an entry without a problem has a URL the
/// URL policy accepts, an intensity in 0…1 and a quality in 1…100; every name maps to a
/// file name that is non-empty, not `.`/`..`, without `/`, NUL or a leading dot, and
/// short enough; an `entry.failed`/`entry.queued` journal line with the entry's name, URL
/// and problem is one line and parses back to the same record.
private let options = ManifestOptions(maxBytes: 1 << 20, maxEntries: 5_000)
private let time = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let first: Manifest
    do {
        first = try ManifestParser.parse(data, name: "fuzz", options: options)
    } catch {
        // Not parsed twice: Foundation leaks about 1 KB per malformed plist (Fuzz/lsan.supp).
        check(!error.message.isEmpty, "a rejection without a message")
        return 0
    }
    do {
        let second = try ManifestParser.parse(data, name: "fuzz", options: options)
        check(second == first, "two parses of the same bytes differ")
    } catch {
        fail("accepted once, rejected the second time: \(error.message)")
    }

    check(first.entries.count <= options.maxEntries, "\(first.entries.count) entries")
    if first.shape == .classic { check(first.priority == .normal, "a classic manifest with priority \(first.priority)") }
    for (index, entry) in first.entries.enumerated() {
        check(entry.index == index, "entry \(index) has index \(entry.index)")
        if let problem = entry.problem {
            check(!problem.code.isEmpty && !problem.message.isEmpty, "entry \(index): a problem without code or message")
        } else {
            if case .failure(let problem) = URLPolicy.check(entry.url, allowFileURLs: options.allowFileURLs) {
                fail("entry \(index) is valid but its URL is not: \(problem)")
            }
            check((0...1).contains(entry.settings.intensity), "entry \(index): intensity \(entry.settings.intensity)")
            check((1...100).contains(entry.settings.quality), "entry \(index): quality \(entry.settings.quality)")
            _ = entry.settings.fingerprint
        }
        checkFileName(entry.name)
        checkJournal(entry)
    }
    return 0
}

private func checkFileName(_ name: String) {
    let base = PhotoFileName.baseName(for: name)
    check(!base.isEmpty && base != "." && base != "..", "file name \(base.debugDescription) for \(name.debugDescription)")
    check(!base.utf8.contains(UInt8(ascii: "/")) && !base.utf8.contains(0), "a / or NUL in the file name for \(name.debugDescription)")
    check(!base.hasPrefix("."), "a leading dot in the file name for \(name.debugDescription)")
    check(base.utf8.count <= PhotoFileName.maxBaseBytes + PhotoFileName.suffixBytes, "file name of \(base.utf8.count) bytes")
    check(PhotoFileName.baseName(for: name) == base, "file name not deterministic")
}

private func checkJournal(_ entry: ManifestEntry) {
    var fields = [JournalField("url", .string(entry.url))]
    if let problem = entry.problem {
        fields.append(JournalField("error", .string(problem.description)))
    } else {
        fields.append(JournalField("priority", .string(entry.priority.rawValue)))
        fields.append(JournalField("settings", .string(entry.settings.fingerprint)))
    }
    let record = JournalRecord(
        time: time, event: entry.problem == nil ? .entryQueued : .entryFailed, host: "fuzz", pid: 1,
        manifest: "fuzz", entry: entry.name, fields: fields)
    let line = record.encodedLine()
    check(line.last == UInt8(ascii: "\n") && line.firstIndex(of: UInt8(ascii: "\n")) == line.count - 1,
          "the journal line for \(entry.name.debugDescription) is not one line")
    guard let back = JournalRecord(line: line) else {
        fail("the journal line for \(entry.name.debugDescription) does not parse: \(String(decoding: line, as: UTF8.self))")
    }
    check(back == record, "the journal line for \(entry.name.debugDescription) reads back as \(back)")
}

private func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fail(message()) }
}

private func fail(_ message: String) -> Never {
    fatalError("FuzzManifest: \(message)")
}
