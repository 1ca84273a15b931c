import DarkroomImaging
import Foundation
import XCTest

/// Runs the built `darkroom` binary, as a user would.
final class FilterCommandTests: XCTestCase {
    private var folder: URL!
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("DarkroomImagingTests/Fixtures")

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
    private func out(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func testOneFileMatchesTheFormula() throws {
        let result = try Darkroom.run(["filter", fixture("png-rose-im.png"), out("rose.png"), "--intensity", "0.8"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try ImageDecoder.decode(ByteStream.reading(path: out("rose.png")))
        let input = try ImageDecoder.decode(ByteStream.reading(path: fixture("png-rose-im.png")))
        var worst = 0
        for i in stride(from: 0, to: input.pixels.count, by: 3) {
            let (r, g, b) = (Double(input.pixels[i]), Double(input.pixels[i + 1]), Double(input.pixels[i + 2]))
            let exact = [
                0.5144 * r + 0.6152 * g + 0.1512 * b,
                0.2792 * r + 0.7488 * g + 0.1344 * b,
                0.2176 * r + 0.4272 * g + 0.3048 * b,
            ]
            for c in 0..<3 {
                worst = max(worst, abs(Int(output.pixels[i + c]) - min(255, Int(exact[c].rounded()))))
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testTheOutputExtensionPicksTheFormat() throws {
        XCTAssertEqual(try Darkroom.run(["filter", fixture("png-rgb8.png"), out("a.jpg")]).status, 0)
        XCTAssertEqual(ImageFormat(sniffing: try Data(contentsOf: URL(fileURLWithPath: out("a.jpg")))), .jpeg)
        XCTAssertEqual(try Darkroom.run(["filter", fixture("jpeg-420.jpg"), out("b.PNG")]).status, 0)
        XCTAssertEqual(ImageFormat(sniffing: try Data(contentsOf: URL(fileURLWithPath: out("b.PNG")))), .png)
    }

    func testQualityChangesTheJPEG() throws {
        XCTAssertEqual(try Darkroom.run(["filter", fixture("png-rose-im.png"), out("low.jpg"), "--quality", "20"]).status, 0)
        XCTAssertEqual(try Darkroom.run(["filter", fixture("png-rose-im.png"), out("high.jpg"), "--quality", "98"]).status, 0)
        let low = try FileManager.default.attributesOfItem(atPath: out("low.jpg"))[.size] as! Int
        let high = try FileManager.default.attributesOfItem(atPath: out("high.jpg"))[.size] as! Int
        XCTAssertLessThan(low, high)
    }

    func testManyInputsOneFailingStillWritesTheOthers() throws {
        let inputs = ["jpeg-420.jpg", "bad-jpeg-truncated.jpg", "png-rgba8.png", "junk-page.html", "jpeg-cmyk-adobe.jpg"]
        let result = try Darkroom.run(["filter"] + inputs.map(fixture) + ["--output-dir", out("dir"), "--jobs", "2"])
        XCTAssertEqual(result.status, 1)
        let lines = result.stderr.split(separator: "\n").map(String.init).sorted()
        XCTAssertEqual(lines.count, 2, result.stderr)
        XCTAssertTrue(lines[0].hasPrefix("bad-jpeg-truncated.jpg: decode: "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("junk-page.html: not-an-image: "), lines[1])
        let written = try FileManager.default.contentsOfDirectory(atPath: out("dir")).sorted()
        XCTAssertEqual(written, ["jpeg-420.jpg", "jpeg-cmyk-adobe.jpg", "png-rgba8.png"])
    }

    func testFormatOptionAppliesToAFolder() throws {
        let result = try Darkroom.run(["filter", fixture("png-rgb8.png"), fixture("jpeg-444.jpg"), "--output-dir", out("d"), "--format", "png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out("d")).sorted(), ["jpeg-444.png", "png-rgb8.png"])
    }

    func testBadCommandLinesExitTwoWithOneLine() throws {
        let cases: [[String]] = [
            ["filter", fixture("jpeg-420.jpg"), out("x.gif")],
            ["filter", fixture("jpeg-420.jpg"), out("x.jpg"), "--intensity", "1.5"],
            ["filter", fixture("jpeg-420.jpg"), out("x.jpg"), "--quality", "0"],
            ["filter", fixture("jpeg-420.jpg")],
            ["filter", fixture("jpeg-420.jpg"), out("x.jpg"), "--format", "gif"],
            ["filter", fixture("png-rgb8.png"), fixture("jpeg-420.jpg"), "--output-dir", out("d"), "--format", "jpeg"]
                .map { $0.replacingOccurrences(of: "jpeg-420.jpg", with: "png-rgb8.png") },
            ["no-such-command"],
        ]
        for arguments in cases {
            let result = try Darkroom.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out("x.jpg")))
    }

    func testAMissingInputIsAReadFailure() throws {
        let result = try Darkroom.run(["filter", out("nope.jpg"), out("x.jpg")])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.hasPrefix("nope.jpg: read: "), result.stderr)
    }

    func testHelpShowsDefaults() throws {
        let result = try Darkroom.run(["filter", "--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("default: 0.8"), result.stdout)
        XCTAssertTrue(result.stdout.contains("default: 90"), result.stdout)
    }
}
