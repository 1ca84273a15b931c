import DarkroomImaging
import Foundation

/// The image fuzz body, shared by FuzzJPEG and FuzzPNG.
///
/// Each input goes through what the daemon does with a downloaded photo — decode in bands
/// of 16 rows → sepia → encode, streamed (`PhotoDeveloper`; for JPEG → JPEG either the
/// YCbCr fast path or the exact RGB path) — into memory, and then the output is decoded again. Besides the sanitizers (ASan on Darkroom's Swift and C code,
/// Swift's own bounds and overflow checks), every input must satisfy:
///
/// - an input that starts with the format's signature fails, if at all, with `decode` or
///   `too-many-pixels` (never `not-an-image`, `write` or `internal`), with a message;
/// - a decoded header has a size within the limit and 3 or 4 channels;
/// - a successful develop read every row, and its output decodes again, cleanly, to an
///   image of the same size (so damaged output is never written as a success).
///
/// The pixel limit is lowered from the daemon's 100,000,000 to 2^20 so that one input
/// cannot take seconds; the code path for the limit is the same.
public enum ImageFuzz {
    public static let limits = DecodingLimits(maxPixels: 1 << 20)

    public static func run(_ bytes: UnsafeRawBufferPointer, expecting format: ImageFormat) -> CInt {
        guard ImageFormat(sniffing: bytes) == format else { return -1 }
        let data = Data(bytes)
        // The input's size picks the path, so that each input always takes the same one:
        // 0 keeps the format (JPEG → JPEG is the YCbCr fast path), 1 writes the other format
        // (PNG → JPEG flattens alpha over white), 2 keeps the format on the exact RGB path.
        let mode = data.count % 3
        let output: OutputFormat = mode == 1 ? (format == .jpeg ? .png : .jpeg) : .source
        let settings = DevelopSettings(intensity: 0.8, format: output, limits: limits, exact: mode == 2)

        let developer: PhotoDeveloper
        do {
            developer = try PhotoDeveloper(input: ByteStream.reading(data: data), settings: settings)
        } catch {
            expectDecodeFailure(error, "opening")
            return 0
        }
        let decoder = developer.decoder
        check(decoder.format == format, "sniffed \(format) but the decoder says \(decoder.format)")
        check(decoder.width > 0 && decoder.height > 0, "empty image \(decoder.width)x\(decoder.height)")
        check(UInt64(decoder.width) * UInt64(decoder.height) <= limits.maxPixels, "over the pixel limit")
        check(decoder.channels == 3 || decoder.channels == 4, "\(decoder.channels) channels")

        let sink = ByteStream.writingToMemory()
        do {
            try developer.run(to: sink)
        } catch let error as ImagingError {
            // Includes a PNG over 65,500 pixels a side asked for as JPEG: `too-many-pixels`.
            expectDecodeFailure(error, "developing")
            return 0
        } catch {
            fail("developing threw \(error)")
        }
        check(decoder.isFinished && decoder.rowsRead == decoder.height, "finished after \(decoder.rowsRead) of \(decoder.height) rows")

        let written = sink.writtenBytes()
        let again: Image
        do {
            again = try ImageDecoder.decode(ByteStream.reading(data: written), limits: limits)
        } catch {
            fail("the developed \(developer.outputFormat) (\(written.count) bytes) does not decode: \(error)")
        }
        check(again.width == decoder.width && again.height == decoder.height,
              "developed \(decoder.width)x\(decoder.height) reads back as \(again.width)x\(again.height)")
        check(again.channels == (developer.outputFormat == .jpeg ? 3 : decoder.channels), "channels changed")
        return 0
    }

    static func expectDecodeFailure(_ error: any Error, _ stage: String) {
        guard let error = error as? ImagingError else { fail("\(stage) threw \(error)") }
        check(error.code == .decode || error.code == .tooManyPixels, "\(stage) failed with \(error)")
        check(!error.message.isEmpty, "\(stage) failed without a message")
    }

    static func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { fail(message()) }
    }

    static func fail(_ message: String) -> Never {
        fatalError("FuzzImaging: \(message)")
    }
}
