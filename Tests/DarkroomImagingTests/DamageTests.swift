import DarkroomImaging
import Foundation
import DarkroomTestSupport
import XCTest

/// Junk and damage give an error code, never a crash, an exit() or a grey-padded image.
final class DamageTests: XCTestCase {
    func testEveryTruncationOfAJPEGIsADecodeError() {
        let bytes = Fixtures.data("jpeg-progressive.jpg")
        // Cutting before the end of the scans (but after the signature) always loses pixels.
        for cut in stride(from: 3, to: bytes.count - 2, by: max(1, bytes.count / 60)) {
            expectImagingError(.decode) { _ = try ImageDecoder.decode(ByteStream.reading(data: bytes.prefix(cut))) }
        }
    }

    func testEveryTruncationOfAPNGIsADecodeError() {
        let bytes = Fixtures.data("png-rgba8.png")
        for cut in stride(from: 8, to: bytes.count, by: max(1, bytes.count / 60)) {
            expectImagingError(.decode) { _ = try ImageDecoder.decode(ByteStream.reading(data: bytes.prefix(cut))) }
        }
    }

    func testAFlippedByteInsideIDATFailsTheCRC() throws {
        var bytes = Fixtures.data("png-rgb8.png")
        let idat = try XCTUnwrap(bytes.range(of: Data("IDAT".utf8)))
        bytes[idat.upperBound + 5] ^= 0x40
        expectImagingError(.decode) { _ = try ImageDecoder.decode(ByteStream.reading(data: bytes)) }
    }

    func testRandomBytesAreNotAnImage() {
        var generator = SeededGenerator(state: 42)
        for length in [1, 2, 7, 100, 4096] {
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.first == 0xFF || bytes.first == 0x89 { bytes[0] = 0 }
            expectImagingError(.notAnImage) { _ = try ImageDecoder.decode(ByteStream.reading(data: Data(bytes))) }
        }
        expectImagingError(.notAnImage) { _ = try ImageDecoder.decode(ByteStream.reading(data: Data())) }
    }

    func testRandomBytesBehindAValidSignatureAreDecodeErrors() {
        var generator = SeededGenerator(state: 7)
        let signatures: [[UInt8]] = [[0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]
        for signature in signatures {
            for _ in 0..<50 {
                let tail = (0..<Int.random(in: 0...3000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                expectImagingError(.decode) { _ = try ImageDecoder.decode(ByteStream.reading(data: Data(signature + tail))) }
            }
        }
    }

    func testPixelBombIsRefusedFromTheHeaderAlone() throws {
        for name in ["bomb-png-60000x60000.png", "bomb-jpeg-60000x60000.jpg"] {
            XCTAssertLessThan(Fixtures.data(name).count, 8192, name)
            do {
                _ = try ImageDecoder(stream: ByteStream.reading(data: Fixtures.data(name)))
                XCTFail("\(name) was accepted")
            } catch {
                XCTAssertEqual(error.code, .tooManyPixels, name)
                XCTAssertTrue(error.message.contains("60000x60000"), error.message)
            }
        }
    }

    func testThePixelLimitIsConfigurable() throws {
        let small = DecodingLimits(maxPixels: 70 * 46 - 1)
        expectImagingError(.tooManyPixels) {
            _ = try ImageDecoder.decode(ByteStream.reading(data: Fixtures.data("jpeg-420.jpg")), limits: small)
        }
        let exact = DecodingLimits(maxPixels: 70 * 46)
        XCTAssertEqual(try ImageDecoder.decode(ByteStream.reading(data: Fixtures.data("jpeg-420.jpg")), limits: exact).width, 70)
    }

    /// Found by fuzzing: a valid PNG 70,000 pixels wide asked for as a JPEG failed inside
    /// libjpeg as `internal`. JPEG cannot be wider than 65,500 pixels: say so, from the size.
    func testAnImageTooWideForJPEGIsRefusedWithAClearReason() throws {
        let wide = ByteStream.writingToMemory()
        try ImageEncoder.encode(Image(width: 70_000, height: 1, channels: 3, pixels: [UInt8](repeating: 9, count: 210_000)), as: .png, to: wide)
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: wide.writtenBytes()), settings: DevelopSettings(format: .jpeg))
        XCTAssertThrowsError(try developer.run(to: ByteStream.writingToMemory())) { error in
            XCTAssertEqual((error as? ImagingError)?.code, .tooManyPixels)
            XCTAssertEqual((error as? ImagingError)?.message, "70000x1 is larger than JPEG allows (65500 pixels a side); ask for png output")
        }
        let asPNG = try PhotoDeveloper(input: ByteStream.reading(data: wide.writtenBytes()), settings: DevelopSettings(format: .png))
        XCTAssertNoThrow(try asPNG.run(to: ByteStream.writingToMemory()))
    }

    func testGarbageAfterTheJPEGEndIsIgnored() throws {
        XCTAssertEqual(try Fixtures.decode("jpeg-trailing-garbage.jpg"), try Fixtures.decode("jpeg-420.jpg"))
    }
}
