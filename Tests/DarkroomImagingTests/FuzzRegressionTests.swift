import DarkroomImaging
import Foundation
import XCTest

/// The image inputs the fuzzers found (Fuzz/Regressions/jpeg and png, see Fuzz/README.md):
/// each must be developed, as the daemon does, to a clean `decode` error, and decoded whole
/// to the same error. Under the fuzzers' AddressSanitizer build they also must not leak.
final class ImageFuzzRegressionTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Regressions")

    static func inputs(_ target: String) -> [URL] {
        let folder = Self.folder.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { folder.appendingPathComponent($0) }
    }

    func testPNGRegressionsFailCleanly() throws {
        let inputs = Self.inputs("png")
        XCTAssertFalse(inputs.isEmpty, "no inputs in \(Self.folder.path)/png")
        for url in inputs { try expectCleanFailure(url, format: .png) }
    }

    func testJPEGRegressionsFailCleanly() throws {
        for url in Self.inputs("jpeg") { try expectCleanFailure(url, format: .jpeg) }
    }

    /// An Adam7 PNG whose data breaks during the whole-image read: libpng longjmps out of
    /// png_read_image, which used to leak the row-pointer array (height × 8 bytes per file).
    func testDamagedInterlacedPNGIsADecodeError() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("png/leak-interlaced-row-pointers.png"))
        let decoder = try ImageDecoder(stream: ByteStream.reading(data: data))
        XCTAssertTrue(decoder.isProgressive)
        XCTAssertThrowsError(try decoder.decodeImage()) { error in
            XCTAssertEqual((error as? ImagingError)?.code, .decode, "\(error)")
        }
    }

    /// A 289-byte PNG whose tEXt chunk claims 553 MB: libpng allocated (and zeroed) that much
    /// before reading, 2 s and 560 MB of RSS per file. Ancillary chunks are now skipped unread.
    func testHugeTextChunkLengthsAllocateNothing() throws {
        for name in ["oom-text-chunk-553mb.png", "oom-text-chunk-1951mb.png"] {
            let before = Self.peakResidentBytes()
            try expectCleanFailure(Self.folder.appendingPathComponent("png/\(name)"), format: .png)
            XCTAssertLessThan(Self.peakResidentBytes() - before, 256 << 20, name)
        }
    }

    private static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    private func expectCleanFailure(_ url: URL, format: ImageFormat, file: StaticString = #filePath, line: UInt = #line) throws {
        let name = url.lastPathComponent
        let data = try Data(contentsOf: url)
        XCTAssertEqual(ImageFormat(sniffing: data), format, name, file: file, line: line)
        do {
            let developer = try PhotoDeveloper(input: ByteStream.reading(data: data))
            try developer.run(to: ByteStream.writingToMemory())
            XCTFail("\(name) developed without an error", file: file, line: line)
        } catch let error as ImagingError {
            XCTAssertEqual(error.code, .decode, "\(name): \(error)", file: file, line: line)
            XCTAssertFalse(error.message.isEmpty, name, file: file, line: line)
        }
        XCTAssertThrowsError(try ImageDecoder.decode(ByteStream.reading(data: data)), name, file: file, line: line) { error in
            XCTAssertEqual((error as? ImagingError)?.code, .decode, "\(name): \(error)", file: file, line: line)
        }
    }
}
