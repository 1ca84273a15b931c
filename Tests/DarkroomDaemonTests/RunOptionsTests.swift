import DarkroomCore
import DarkroomDaemon
import XCTest

final class RunOptionsTests: XCTestCase {
    private func file(_ text: String) throws -> ConfigFile {
        try ConfigFile(text: text, path: "/etc/darkroom/darkroom.toml", keys: RunOptions.keys)
    }

    private func commandLine(_ adjust: (inout RunOptions) -> Void = { _ in }) -> RunOptions {
        var options = RunOptions()
        options.inbox = "/in"
        options.outbox = "/out"
        adjust(&options)
        return options
    }

    func testDefaultsWhenNothingIsGiven() throws {
        let resolved = try RunOptions.resolve(commandLine: commandLine(), file: nil)
        XCTAssertEqual(resolved.configuration, DaemonConfiguration(inbox: "/in", outbox: "/out"))
        XCTAssertEqual(resolved.configuration.downloadConcurrency, 8)
        XCTAssertEqual(resolved.configuration.journalPath, "/out/journal.jsonl")
        XCTAssertEqual(resolved.logLevel, "info")
    }

    func testTheFileOverridesDefaultsAndTheCommandLineOverridesTheFile() throws {
        let config = try file("""
            inbox = "/srv/in"
            outbox = "/srv/out"
            download-concurrency = 3
            quality = 70
            allow-file-urls = true
            format = "png"
            log-level = "debug"
            """)
        var options = RunOptions()
        options.downloadConcurrency = 5
        options.allowFileURLs = false
        let resolved = try RunOptions.resolve(commandLine: options, file: config)
        XCTAssertEqual(resolved.configuration.inbox, "/srv/in")
        XCTAssertEqual(resolved.configuration.downloadConcurrency, 5, "command line wins")
        XCTAssertEqual(resolved.configuration.quality, 70, "file over default")
        XCTAssertEqual(resolved.configuration.allowFileURLs, false, "--no-allow-file-urls overrides the file")
        XCTAssertEqual(resolved.configuration.format, .png)
        XCTAssertEqual(resolved.logLevel, "debug")
    }

    func testABadValueInTheFileNamesTheFileLineAndKey() throws {
        let config = try file("inbox = \"/in\"\noutbox = \"/out\"\nquality = 0")
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: RunOptions(), file: config)) { error in
            XCTAssertEqual("\(error)", "/etc/darkroom/darkroom.toml:3: key 'quality': must be between 1 and 100")
        }
        let format = try file("format = \"gif\"")
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: commandLine(), file: format)) { error in
            XCTAssertEqual("\(error)", "/etc/darkroom/darkroom.toml:1: key 'format': must be jpeg, png or source")
        }
        let type = try file("retries = \"three\"")
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: commandLine(), file: type)) { error in
            XCTAssertEqual("\(error)", "/etc/darkroom/darkroom.toml:1: key 'retries': expected an integer, found \"three\"")
        }
    }

    func testABadValueOnTheCommandLineNamesTheOption() {
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: commandLine { $0.downloadConcurrency = 0 }, file: nil)) {
            XCTAssertEqual("\($0)", "--download-concurrency must be at least 1")
        }
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: commandLine { $0.logLevel = "loud" }, file: nil)) {
            XCTAssertEqual("\($0)", "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func testACommandLineValueReplacesABadFileValueWithoutComplaint() throws {
        let config = try file("quality = 0")
        XCTAssertEqual(try RunOptions.resolve(commandLine: commandLine { $0.quality = 50 }, file: config).configuration.quality, 50)
    }

    func testInboxAndOutboxAreRequiredFromOneSideOrTheOther() throws {
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: RunOptions(), file: nil)) {
            XCTAssertTrue("\($0)".hasPrefix("--inbox is required"), "\($0)")
        }
        var options = RunOptions()
        options.inbox = "/in"
        XCTAssertThrowsError(try RunOptions.resolve(commandLine: options, file: nil)) {
            XCTAssertTrue("\($0)".hasPrefix("--outbox is required"), "\($0)")
        }
        XCTAssertEqual(try RunOptions.resolve(commandLine: options, file: file("outbox = \"/o\"")).configuration.outbox, "/o")
    }

    func testEveryKeyOfTheFileIsAnOptionOfRun() throws {
        // A file giving every key parses and resolves: no key is accepted but ignored.
        let all = try file("""
            inbox = "/i"
            outbox = "/o"
            download-concurrency = 2
            filter-concurrency = 3
            retries = 4
            connect-timeout = 5
            timeout = 6
            max-download-bytes = 7
            max-pixels = 8
            allow-file-urls = true
            deny-private-networks = true
            exact = true
            format = "jpeg"
            quality = 9
            rescan-interval = 10
            journal = "/j.jsonl"
            log-level = "warning"
            """)
        XCTAssertEqual(all.entries.count, RunOptions.keys.count)
        let c = try RunOptions.resolve(commandLine: RunOptions(), file: all).configuration
        XCTAssertEqual(
            [c.downloadConcurrency, c.filterConcurrency, c.retries, Int(c.connectTimeout), Int(c.timeout), c.maxDownloadBytes,
             Int(c.maxPixels), c.quality, Int(c.rescanInterval)],
            [2, 3, 4, 5, 6, 7, 8, 9, 10])
        XCTAssertTrue(c.allowFileURLs && c.denyPrivateNetworks && c.exact)
        XCTAssertEqual(c.format, .jpeg)
        XCTAssertEqual(c.journalPath, "/j.jsonl")
    }
}
