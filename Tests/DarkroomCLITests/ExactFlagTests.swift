import DarkroomImaging
import Foundation
import XCTest

/// `darkroom filter --exact`: the RGB path for JPEG → JPEG; without it, the YCbCr fast path.
final class ExactFlagTests: XCTestCase {
    private var folder: URL!
    private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("DarkroomImagingTests/Fixtures/jpeg-422.jpg").path

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-exact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func library(exact: Bool) throws -> Data {
        let developer = try PhotoDeveloper(
            input: ByteStream.reading(path: fixture), settings: DevelopSettings(intensity: 0.8, exact: exact))
        let output = ByteStream.writingToMemory()
        try developer.run(to: output)
        return output.writtenBytes()
    }

    func testExactAndFastOutputsAreTheLibrarysTwoPaths() throws {
        let exactPath = folder.appendingPathComponent("exact.jpg").path
        let fastPath = folder.appendingPathComponent("fast.jpg").path
        var result = try Darkroom.run(["filter", fixture, exactPath, "--exact"])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try Darkroom.run(["filter", fixture, fastPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        let exact = try Data(contentsOf: URL(fileURLWithPath: exactPath))
        let fast = try Data(contentsOf: URL(fileURLWithPath: fastPath))
        XCTAssertEqual(exact, try library(exact: true))
        XCTAssertEqual(fast, try library(exact: false))
        XCTAssertNotEqual(exact, fast)
    }

    func testRunAcceptsExact() throws {
        let help = try Darkroom.run(["run", "--help"])
        XCTAssertTrue(help.stdout.contains("--exact"), help.stdout)
    }
}
