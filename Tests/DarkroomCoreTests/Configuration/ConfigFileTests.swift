import DarkroomCore
import XCTest

final class ConfigFileTests: XCTestCase {
    private let keys: Set<String> = ["inbox", "download-concurrency", "timeout", "allow-file-urls", "format", "max-download-bytes"]

    private func parse(_ text: String) throws -> ConfigFile {
        try ConfigFile(text: text, path: "/etc/darkroom/darkroom.toml", keys: keys)
    }

    private func error(_ text: String) -> ConfigError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error as? ConfigError
        }
    }

    func testEveryKindOfValueCommentsAndBlankLines() throws {
        let file = try parse("""
            # Darkroom
            inbox = "/var/lib/darkroom/inbox"   # where manifests land

            download-concurrency = 16
            timeout = 2.5
            allow-file-urls = true
            format = 'jpeg'
            max-download-bytes = 67_108_864
            """)
        XCTAssertEqual(try file.string("inbox"), "/var/lib/darkroom/inbox")
        XCTAssertEqual(try file.integer("download-concurrency"), 16)
        XCTAssertEqual(try file.number("timeout"), 2.5)
        XCTAssertEqual(try file.bool("allow-file-urls"), true)
        XCTAssertEqual(try file.string("format"), "jpeg")
        XCTAssertEqual(try file.integer("max-download-bytes"), 67_108_864)
        XCTAssertEqual(file["timeout"]?.line, 5)
    }

    func testAnIntegerIsANumberButNotTheOtherWayRound() throws {
        let file = try parse("timeout = 30\ndownload-concurrency = 2.0")
        XCTAssertEqual(try file.number("timeout"), 30)
        XCTAssertThrowsError(try file.integer("download-concurrency")) { error in
            XCTAssertEqual("\(error)", "/etc/darkroom/darkroom.toml:2: key 'download-concurrency': expected an integer, found 2.0")
        }
    }

    func testStringEscapes() throws {
        let file = try parse(#"inbox = "a\"b\\c\tdé\u00e9""#)
        XCTAssertEqual(try file.string("inbox"), "a\"b\\c\tdéé")
    }

    func testErrorsNameTheFileTheLineAndTheKey() {
        XCTAssertEqual(
            error("inbox = \"/x\"\nthreads = 4")?.description,
            "/etc/darkroom/darkroom.toml:2: key 'threads': unknown option (known: allow-file-urls, download-concurrency, format, inbox, max-download-bytes, timeout)")
        XCTAssertEqual(error("timeout = 1\n\ntimeout = 2")?.description, "/etc/darkroom/darkroom.toml:3: key 'timeout': given twice (first on line 1)")
        XCTAssertEqual(error("format = jpeg")?.description,
                       "/etc/darkroom/darkroom.toml:1: key 'format': 'jpeg' is not a value: strings need quotes, as in \"jpeg\"")
        XCTAssertEqual(error("inbox = \"/x")?.description, "/etc/darkroom/darkroom.toml:1: key 'inbox': unterminated string")
        XCTAssertEqual(error("inbox")?.line, 1)
        XCTAssertEqual(error("[run]\ninbox = \"/x\"")?.message, "tables are not used: write every option at the top level")
        XCTAssertEqual(error("inbox = [\"/x\"]")?.key, "inbox")
        XCTAssertEqual(error("timeout = 1 2")?.message, "unexpected text after the value")
        XCTAssertEqual(error("timeout =")?.message, "missing value")
        XCTAssertEqual(error("run.inbox = \"/x\"")?.message, "dotted keys are not used: write every option at the top level")
        XCTAssertEqual(error("timeout = nan")?.key, "timeout")
    }

    func testTypeMismatchesAreReportedWithTheLine() throws {
        let file = try parse("\n\nallow-file-urls = \"yes\"")
        XCTAssertThrowsError(try file.bool("allow-file-urls")) { error in
            XCTAssertEqual((error as? ConfigError)?.line, 3)
            XCTAssertEqual((error as? ConfigError)?.message, "expected true or false, found \"yes\"")
        }
        XCTAssertNil(try file.string("inbox"), "absent keys are nil")
    }

    func testWindowsLineEndingsAndAnEmptyFile() throws {
        XCTAssertEqual(try parse("timeout = 3\r\n").integer("timeout"), 3)
        XCTAssertEqual(try parse("").entries.count, 0)
    }
}
