import DarkroomImaging
import Foundation
import XCTest

/// Every committed fixture decodes to the pixels an independent tool reported, or
/// fails with the error code the index names (Fixtures/index.tsv).
final class DecodingTests: XCTestCase {
    func testEveryIntactFixtureMatchesTheIndependentDecoder() throws {
        let intact = Fixtures.index.filter { $0.expect == "ok" }
        XCTAssertGreaterThanOrEqual(intact.count, 30)
        for entry in intact {
            let image = try Fixtures.decode(entry.file)
            let expected = Image(
                width: entry.width, height: entry.height, channels: entry.channels,
                pixels: Array(try Data(contentsOf: entry.expectedPixelsURL)))
            assertPixels(image, expected, tolerance: entry.tolerance, entry.file)
        }
    }

    func testEveryDamagedOrForeignFixtureFailsWithItsCode() throws {
        let broken = Fixtures.index.filter { $0.expect != "ok" }
        XCTAssertGreaterThanOrEqual(broken.count, 14)
        for entry in broken {
            let code = try XCTUnwrap(ImagingError.Code(rawValue: entry.expect), entry.file)
            expectImagingError(code) { _ = try Fixtures.decode(entry.file) }
            // The same bytes from memory behave the same.
            expectImagingError(code) { _ = try ImageDecoder.decode(ByteStream.reading(data: Fixtures.data(entry.file))) }
        }
    }

    func testDecodingFromMemoryEqualsDecodingFromAFile() throws {
        for name in ["jpeg-progressive.jpg", "png-rgba16-adam7.png", "jpeg-ycck-adobe.jpg"] {
            let fromMemory = try ImageDecoder.decode(ByteStream.reading(data: Fixtures.data(name)))
            XCTAssertEqual(fromMemory, try Fixtures.decode(name), name)
        }
    }

    func testHeaderFactsAreReported() throws {
        let progressive = try ImageDecoder(stream: ByteStream.reading(data: Fixtures.data("jpeg-progressive.jpg")))
        XCTAssertEqual(progressive.format, .jpeg)
        XCTAssertTrue(progressive.isProgressive)
        XCTAssertEqual(progressive.sourceComponents, 3)
        let cmyk = try ImageDecoder(stream: ByteStream.reading(data: Fixtures.data("jpeg-cmyk-adobe.jpg")))
        XCTAssertEqual(cmyk.sourceComponents, 4)
        XCTAssertEqual(cmyk.channels, 3)
        let png = try ImageDecoder(stream: ByteStream.reading(data: Fixtures.data("png-graya16.png")))
        XCTAssertEqual(png.format, .png)
        XCTAssertEqual(png.sourceBitDepth, 16)
        XCTAssertEqual(png.channels, 4)
    }

    func testFormatIsSniffedFromBytesNotFromTheName() throws {
        XCTAssertEqual(ImageFormat(sniffing: Fixtures.data("jpeg-420.jpg")), .jpeg)
        XCTAssertEqual(ImageFormat(sniffing: Fixtures.data("png-rgb8.png")), .png)
        XCTAssertNil(ImageFormat(sniffing: Fixtures.data("junk-page.html")))
        XCTAssertNil(ImageFormat(sniffing: [UInt8]()))
        // A PNG saved as .jpg decodes as the PNG it is.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("misnamed-\(getpid()).jpg")
        try Fixtures.data("png-rgb8.png").write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let decoder = try ImageDecoder(stream: ByteStream.reading(path: url.path))
        XCTAssertEqual(decoder.format, .png)
    }

    func testRowsStreamInBandsOfAnySize() throws {
        let whole = try Fixtures.decode("jpeg-420.jpg")
        let decoder = try ImageDecoder(stream: ByteStream.reading(data: Fixtures.data("jpeg-420.jpg")))
        var pixels: [UInt8] = []
        var band = [UInt8](repeating: 0, count: decoder.bytesPerRow * 3)
        while !decoder.isFinished {
            let rows = try band.withUnsafeMutableBytes { try decoder.readRows(into: $0, maxRows: 3) }
            XCTAssertGreaterThan(rows, 0)
            pixels += band.prefix(rows * decoder.bytesPerRow)
        }
        XCTAssertEqual(pixels, whole.pixels)
    }
}
