import CDarkroomCodecs

/// Encoding settings. Defaults: JPEG quality 90 (SPEC §6), PNG zlib level 6.
public struct EncodingOptions: Sendable, Equatable {
    /// JPEG quality, 1...100.
    public var quality: Int
    /// PNG zlib compression level, 0...9.
    public var pngCompressionLevel: Int

    public init(quality: Int = 90, pngCompressionLevel: Int = 6) {
        self.quality = quality
        self.pngCompressionLevel = pngCompressionLevel
    }
}

/// Writes an image row by row as JPEG or PNG.
///
/// A JPEG has no alpha channel: RGBA rows are composited over white. A PNG keeps
/// alpha (8-bit RGBA) or is 8-bit RGB. Not thread-safe: one thread at a time.
public final class ImageEncoder {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let channels: Int

    /// The encoder takes 4:2:0 YCbCr planes (`yccBand`, `writeYCbCrBand`), not rows.
    public let takesYCbCrPlanes: Bool

    private let stream: ByteStream
    private let encoder: OpaquePointer

    public convenience init(
        stream: ByteStream, format: ImageFormat, width: Int, height: Int, channels: Int,
        options: EncodingOptions = EncodingOptions()
    ) throws(ImagingError) {
        try self.init(stream: stream, format: format, width: width, height: height, channels: channels, planes: false) {
            dr_encoder_open(
                stream.file, format.cValue, UInt32(width), UInt32(height), UInt32(channels),
                Int32(options.quality), Int32(options.pngCompressionLevel), &$0)
        }
    }

    /// Every public initialiser: `open` opens the C encoder or fills in the error.
    private init(
        stream: ByteStream, format: ImageFormat, width: Int, height: Int, channels: Int, planes: Bool,
        open: (inout dr_error) -> OpaquePointer?
    ) throws(ImagingError) {
        var error = dr_error()
        guard let encoder = open(&error) else { throw ImagingError(error) }
        self.stream = stream
        self.encoder = encoder
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.takesYCbCrPlanes = planes
    }

    /// A JPEG encoder (4:2:0) that takes YCbCr planes as they go into the DCT: the caller
    /// fills `yccBand`, then calls `writeYCbCrBand()`, once per `DR_YCC_BAND_ROWS` rows, top
    /// to bottom.
    convenience init(yccStream stream: ByteStream, width: Int, height: Int, options: EncodingOptions) throws(ImagingError) {
        try self.init(stream: stream, format: .jpeg, width: width, height: height, channels: 3, planes: true) {
            dr_encoder_open_ycc420(stream.file, UInt32(width), UInt32(height), Int32(options.quality), &$0)
        }
    }

    /// For tests: a JPEG rows encoder with Y sampled `lumaFactors` (chroma 1×1: (2, 1) is
    /// 4:2:2), progressive or not, a restart marker every `restartRows` MCU rows (0: none).
    convenience init(
        jpegLayoutStream stream: ByteStream, width: Int, height: Int, channels: Int, quality: Int,
        lumaFactors: (Int, Int), progressive: Bool, restartRows: Int
    ) throws(ImagingError) {
        let layout = dr_jpeg_layout(
            luma_h_factor: Int32(lumaFactors.0), luma_v_factor: Int32(lumaFactors.1), progressive: progressive ? 1 : 0,
            restart_rows: Int32(restartRows))
        try self.init(stream: stream, format: .jpeg, width: width, height: height, channels: channels, planes: false) {
            dr_encoder_open_jpeg_layout(
                stream.file, UInt32(width), UInt32(height), UInt32(channels), Int32(quality), layout, &$0)
        }
    }

    /// The encoder's band of planes, for the caller to fill before `writeYCbCrBand()`.
    var yccBand: dr_ycc_band {
        var band = dr_ycc_band()
        dr_encoder_ycc_band(encoder, &band)
        return band
    }

    func writeYCbCrBand() throws(ImagingError) {
        var error = dr_error()
        guard dr_encoder_write_ycc_band(encoder, &error) == DR_OK else { throw ImagingError(error) }
    }

    public var bytesPerRow: Int { width * channels }

    /// Appends `count` packed rows from `rows`.
    public func writeRows(_ rows: UnsafeRawBufferPointer, count: Int) throws(ImagingError) {
        precondition(rows.count >= count * bytesPerRow, "fewer bytes than rows")
        var error = dr_error()
        let status = dr_encoder_write_rows(
            encoder, rows.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(count), &error)
        guard status == DR_OK else { throw ImagingError(error) }
    }

    /// Writes the trailer and flushes the stream; `write` errors (a full disk) surface here.
    public func finish() throws(ImagingError) {
        var error = dr_error()
        guard dr_encoder_finish(encoder, &error) == DR_OK else { throw ImagingError(error) }
    }

    deinit {
        dr_encoder_close(encoder)
    }
}

extension ImageEncoder {
    /// Encodes a whole image into `stream`.
    public static func encode(
        _ image: Image, as format: ImageFormat, to stream: ByteStream, options: EncodingOptions = EncodingOptions()
    ) throws(ImagingError) {
        let encoder = try ImageEncoder(
            stream: stream, format: format, width: image.width, height: image.height, channels: image.channels,
            options: options)
        var failure: ImagingError?
        image.pixels.withUnsafeBytes { raw in
            do throws(ImagingError) { try encoder.writeRows(raw, count: image.height) } catch { failure = error }
        }
        if let failure { throw failure }
        try encoder.finish()
    }
}
