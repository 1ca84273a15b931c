import DarkroomImaging
import Foundation
import DarkroomTestSupport
import XCTest

/// decode → filter → encode, streamed, as `darkroom filter` and the daemon use it.
final class DeveloperTests: XCTestCase {
    private func develop(_ name: String, settings: DevelopSettings, isCancelled: () -> Bool = { false }) throws -> (PhotoDeveloper, Data) {
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: Fixtures.data(name)), settings: settings)
        let output = ByteStream.writingToMemory()
        try developer.run(to: output, isCancelled: isCancelled)
        return (developer, output.writtenBytes())
    }

    func testPNGToPNGIsTheExactFormula() throws {
        for name in ["png-rose-im.png", "png-rgba8.png", "png-pal8-trns.png", "png-rgb16.png"] {
            let (developer, bytes) = try develop(name, settings: DevelopSettings(intensity: 0.8))
            XCTAssertEqual(developer.outputFormat, .png)
            XCTAssertEqual(ImageFormat(sniffing: bytes), .png)
            let result = try ImageDecoder.decode(ByteStream.reading(data: bytes))
            let expected = Reference.filter(try Fixtures.decode(name), amount: 0.8)
            assertPixels(result, expected, tolerance: 1, name)
            // Ties aside, nearly every channel is exactly the formula.
            let exact = zip(result.pixels, expected.pixels).filter { $0 == $1 }.count
            XCTAssertGreaterThan(Double(exact) / Double(result.pixels.count), 0.99, name)
        }
    }

    func testAlphaSurvivesIntoPNG() throws {
        let (_, bytes) = try develop("png-graya8.png", settings: DevelopSettings(intensity: 1))
        let result = try ImageDecoder.decode(ByteStream.reading(data: bytes))
        let source = try Fixtures.decode("png-graya8.png")
        XCTAssertEqual(result.channels, 4)
        XCTAssertEqual(
            stride(from: 3, to: result.pixels.count, by: 4).map { result.pixels[$0] },
            stride(from: 3, to: source.pixels.count, by: 4).map { source.pixels[$0] })
    }

    func testSourceFormatIsKeptAndCanBeOverridden() throws {
        XCTAssertEqual(try develop("jpeg-420.jpg", settings: DevelopSettings()).0.outputFormat, .jpeg)
        XCTAssertEqual(try develop("png-rgb8.png", settings: DevelopSettings()).0.outputFormat, .png)
        let (developer, bytes) = try develop("png-rgb8.png", settings: DevelopSettings(format: .jpeg))
        XCTAssertEqual(developer.outputFormat, .jpeg)
        XCTAssertEqual(ImageFormat(sniffing: bytes), .jpeg)
    }

    func testJPEGOutputIsCloseToTheFormulaAndHonoursQuality() throws {
        let source = try Fixtures.decode("png-rose-im.png")
        let expected = Reference.filter(source, amount: 0.8)
        var sizes: [Int] = []
        for quality in [30, 95] {
            let settings = DevelopSettings(format: .jpeg, encoding: EncodingOptions(quality: quality))
            let (_, bytes) = try develop("png-rose-im.png", settings: settings)
            sizes.append(bytes.count)
            let result = try ImageDecoder.decode(ByteStream.reading(data: bytes))
            XCTAssertGreaterThan(psnr(result, expected), quality == 95 ? 35 : 25, "quality \(quality)")
        }
        XCTAssertLessThan(sizes[0], sizes[1])
    }

    func testTransparentPixelsBecomeWhiteInAJPEG() throws {
        // png-rgba8 has fully transparent pixels; a JPEG flattens them over white.
        let source = try Fixtures.decode("png-rgba8.png")
        let transparent = try XCTUnwrap(stride(from: 0, to: source.pixels.count, by: 4).first { source.pixels[$0 + 3] == 0 })
        let (_, bytes) = try develop("png-rgba8.png", settings: DevelopSettings(intensity: 0, format: .jpeg, encoding: EncodingOptions(quality: 100)))
        let result = try ImageDecoder.decode(ByteStream.reading(data: bytes))
        XCTAssertEqual(result.channels, 3)
        let pixel = transparent / 4 * 3
        XCTAssertGreaterThan(Int(result.pixels[pixel]), 200)
        XCTAssertGreaterThan(Int(result.pixels[pixel + 1]), 200)
        XCTAssertGreaterThan(Int(result.pixels[pixel + 2]), 200)
    }

    func testDamageFoundWhileStreamingIsReportedAfterSomeRowsWereWritten() {
        expectImagingError(.decode) { _ = try develop("bad-jpeg-truncated.jpg", settings: DevelopSettings()) }
        expectImagingError(.decode) { _ = try develop("bad-png-truncated.png", settings: DevelopSettings()) }
        expectImagingError(.decode) { _ = try develop("bad-png-crc.png", settings: DevelopSettings()) }
    }

    func testCancellationStopsTheStream() throws {
        // A 64-row image has four bands; cancel after the first.
        var pixels = [UInt8](repeating: 0, count: 40 * 64 * 3)
        for i in pixels.indices { pixels[i] = UInt8(i % 251) }
        let encoded = ByteStream.writingToMemory()
        try ImageEncoder.encode(Image(width: 40, height: 64, channels: 3, pixels: pixels), as: .png, to: encoded)
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: encoded.writtenBytes()))
        var checks = 0
        XCTAssertThrowsError(
            try developer.run(to: ByteStream.writingToMemory()) {
                checks += 1
                return checks == 2
            }
        ) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(checks, 2)
        XCTAssertEqual(developer.decoder.rowsRead, PhotoDeveloper.rowsPerBand)
    }

    func testAFullDiskIsAWriteError() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let fd = open("/dev/full", O_WRONLY)
        defer { close(fd) }
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: Fixtures.data("jpeg-444.jpg")))
        do {
            try developer.run(to: ByteStream.writing(fileDescriptor: fd))
            XCTFail("writing to /dev/full succeeded")
        } catch let error as ImagingError {
            XCTAssertEqual(error.code, .write)
            XCTAssertTrue(error.message.contains("No space left"), error.message)
        }
        let png = try PhotoDeveloper(input: ByteStream.reading(data: Fixtures.data("png-rose-im.png")))
        XCTAssertThrowsError(try png.run(to: ByteStream.writing(fileDescriptor: fd))) {
            XCTAssertEqual(($0 as? ImagingError)?.code, .write, "\($0)")
        }
    }

    func testEncodeDecodeRoundTripOfEveryPNGLayoutIsLossless() throws {
        for channels in [3, 4] {
            var generator = SeededGenerator(state: UInt64(channels))
            let pixels = (0..<(31 * 17 * channels)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let image = Image(width: 31, height: 17, channels: channels, pixels: pixels)
            let stream = ByteStream.writingToMemory()
            try ImageEncoder.encode(image, as: .png, to: stream)
            XCTAssertEqual(try ImageDecoder.decode(ByteStream.reading(data: stream.writtenBytes())), image)
        }
    }
}

func psnr(_ a: Image, _ b: Image) -> Double {
    let squared = zip(a.pixels, b.pixels).reduce(0.0) { sum, pair in
        let d = Double(pair.0) - Double(pair.1)
        return sum + d * d
    }
    let mse = squared / Double(a.pixels.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
