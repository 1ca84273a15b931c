import DarkroomImaging
import Foundation
import DarkroomTestSupport
import XCTest

/// The committed fixtures next to this file (see Fixtures/README.md).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Entry {
        var file: String
        var kind: String
        var width: Int
        var height: Int
        var channels: Int
        var tolerance: Int
        var expect: String

        var url: URL { Fixtures.folder.appendingPathComponent(file) }
        var expectedPixelsURL: URL {
            Fixtures.folder.appendingPathComponent(file + (channels == 4 ? ".rgba" : ".rgb"))
        }
    }

    static let index: [Entry] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("index.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(
                file: f[0], kind: f[1], width: Int(f[2])!, height: Int(f[3])!, channels: Int(f[4])!,
                tolerance: Int(f[5])!, expect: f[6])
        }
    }()

    static func data(_ name: String) -> Data {
        try! Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func decode(_ name: String) throws -> Image {
        try ImageDecoder.decode(ByteStream.reading(path: folder.appendingPathComponent(name).path))
    }
}

/// The W3C sepia formula in double precision, written out independently of `SepiaMatrix`.
enum Reference {
    static func sepia(_ r: Int, _ g: Int, _ b: Int, amount a: Double) -> (Double, Double, Double) {
        let (r, g, b) = (Double(r), Double(g), Double(b))
        let k = 1 - a
        return (
            (0.393 + 0.607 * k) * r + (0.769 - 0.769 * k) * g + (0.189 - 0.189 * k) * b,
            (0.349 - 0.349 * k) * r + (0.686 + 0.314 * k) * g + (0.168 - 0.168 * k) * b,
            (0.272 - 0.272 * k) * r + (0.534 - 0.534 * k) * g + (0.131 + 0.869 * k) * b
        )
    }

    static func level(_ exact: Double) -> Int { min(255, Int(exact.rounded())) }

    /// Whether rounding `exact` is ambiguous at the kernel's precision (within 1e-4 of a half).
    static func isNearTie(_ exact: Double) -> Bool {
        abs(exact - exact.rounded(.down) - 0.5) < 1e-4 && exact < 255
    }

    /// The image filtered by the formula; `ties` counts channels whose rounding is ambiguous.
    static func filter(_ image: Image, amount: Double) -> Image {
        var out = image
        for i in stride(from: 0, to: image.pixels.count, by: image.channels) {
            let p = image.pixels
            let (r, g, b) = sepia(Int(p[i]), Int(p[i + 1]), Int(p[i + 2]), amount: amount)
            out.pixels[i] = UInt8(level(r))
            out.pixels[i + 1] = UInt8(level(g))
            out.pixels[i + 2] = UInt8(level(b))
        }
        return out
    }
}

/// Asserts two images have the same shape and no channel differs by more than `tolerance`.
func assertPixels(
    _ actual: Image, _ expected: Image, tolerance: Int = 0, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(actual.width, expected.width, message, file: file, line: line)
    XCTAssertEqual(actual.height, expected.height, message, file: file, line: line)
    XCTAssertEqual(actual.channels, expected.channels, message, file: file, line: line)
    guard actual.pixels.count == expected.pixels.count else { return }
    var worst = 0, worstIndex = 0
    for i in actual.pixels.indices {
        let d = abs(Int(actual.pixels[i]) - Int(expected.pixels[i]))
        if d > worst { (worst, worstIndex) = (d, i) }
    }
    XCTAssertLessThanOrEqual(
        worst, tolerance,
        "\(message): byte \(worstIndex) (pixel \(worstIndex / actual.channels)) is \(actual.pixels[worstIndex]), expected \(expected.pixels[worstIndex])",
        file: file, line: line)
}

func expectImagingError(
    _ code: ImagingError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
) {
    do {
        try body()
        XCTFail("expected \(code.rawValue), got success", file: file, line: line)
    } catch let error as ImagingError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
    } catch {
        XCTFail("expected ImagingError \(code.rawValue), got \(error)", file: file, line: line)
    }
}
