import DarkroomCore
import DarkroomDaemon
import XCTest

/// `exact` (config file) and `--exact` / `--no-exact` (command line) pick the RGB path for JPEG → JPEG.
final class ExactOptionTests: XCTestCase {
    private func file(_ text: String) throws -> ConfigFile {
        try ConfigFile(text: text, path: "/etc/darkroom/darkroom.toml", keys: RunOptions.keys)
    }

    func testOffByDefaultOnFromTheFileAndTheCommandLineWins() throws {
        var commandLine = RunOptions()
        commandLine.inbox = "/in"
        commandLine.outbox = "/out"
        XCTAssertFalse(try RunOptions.resolve(commandLine: commandLine, file: nil).configuration.exact)
        let config = try file("exact = true")
        XCTAssertTrue(try RunOptions.resolve(commandLine: commandLine, file: config).configuration.exact)
        commandLine.exact = false
        XCTAssertFalse(try RunOptions.resolve(commandLine: commandLine, file: config).configuration.exact, "--no-exact")
    }

    func testANonBooleanIsRefusedWithTheKey() throws {
        XCTAssertThrowsError(try file("inbox = \"/in\"\noutbox = \"/out\"\nexact = \"yes\"").bool("exact")) { error in
            XCTAssertTrue("\(error)".contains("exact"), "\(error)")
        }
    }
}
