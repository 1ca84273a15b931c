import CDarkroomCodecs

/// What to do to a photograph: the filter intensity, the output format and the limits.
public struct DevelopSettings: Sendable, Equatable {
    /// Sepia amount, 0...1. Default 0.8.
    public var intensity: Double
    /// Default `.source`: the input's own format.
    public var format: OutputFormat
    public var encoding: EncodingOptions
    public var limits: DecodingLimits
    /// Always decode to RGB, filter, encode from RGB (`--exact`), even JPEG → JPEG where
    /// the YCbCr fast path would apply. Default false.
    public var exact: Bool

    public init(
        intensity: Double = 0.8, format: OutputFormat = .source, encoding: EncodingOptions = EncodingOptions(),
        limits: DecodingLimits = DecodingLimits(), exact: Bool = false
    ) {
        self.intensity = intensity
        self.format = format
        self.encoding = encoding
        self.limits = limits
        self.exact = exact
    }
}

/// Develops one photograph: decode → sepia → encode, streamed a band of rows at a time.
///
/// Only one band (`rowsPerBand` rows) is in memory, never the whole image (an
/// interlaced PNG is the exception: Adam7 needs every pass).
///
/// JPEG → JPEG takes the fast path unless `settings.exact`: a 3-component YCbCr JPEG
/// (4:4:4, 4:2:2, 4:2:0) is decoded to its YCbCr planes and the sepia kernel writes the
/// 4:2:0 planes the encoder compresses, so libjpeg's upsampling, both colour conversions
/// and its downsampling are skipped (docs/fast-path.md: design, error bound, figures).
/// Other JPEG layouts, grayscale, CMYK and YCCK JPEGs, PNG input or output take the exact
/// path.
///
/// Creating a developer reads the header, so `outputFormat` is known before the caller
/// picks the output file's name; `run(to:isCancelled:)` does the rest.
///
/// Not thread-safe; each photograph gets its own developer.
public final class PhotoDeveloper {
    /// Rows decoded, filtered and encoded per step, and between cancellation checks.
    public static let rowsPerBand = 16

    public let settings: DevelopSettings
    public let decoder: ImageDecoder
    public var inputFormat: ImageFormat { decoder.format }
    public let outputFormat: ImageFormat
    private let filter: SepiaFilter

    /// Whether `run` takes the JPEG → JPEG YCbCr fast path.
    public var usesYCbCrFastPath: Bool { decoder.providesYCbCrPlanes }

    public init(input: ByteStream, settings: DevelopSettings = DevelopSettings()) throws(ImagingError) {
        self.settings = settings
        // Planes are only asked for when the output is a JPEG too (a JPEG input with
        // format .source or .jpeg); the decoder still gives rows for gray, CMYK, YCCK.
        self.decoder = try ImageDecoder(
            stream: input, limits: settings.limits, preferYCbCrPlanes: !settings.exact && settings.format != .png)
        self.outputFormat = settings.format.resolved(input: decoder.format)
        self.filter = SepiaFilter(amount: settings.intensity)
    }

    /// Develops the photograph into `output`.
    ///
    /// - Parameter isCancelled: asked before every band; when it answers true the
    ///   work stops and `CancellationError` is thrown (the output is then partial and
    ///   must be discarded by the caller).
    /// - Throws: `ImagingError` (decode, write...) or `CancellationError`.
    public func run(to output: ByteStream, isCancelled: () -> Bool = { false }) throws {
        if usesYCbCrFastPath {
            let encoder = try ImageEncoder(
                yccStream: output, width: decoder.width, height: decoder.height, options: settings.encoding)
            try filterYCbCrBands(into: encoder.yccBand, isCancelled: isCancelled) { _ throws(ImagingError) in
                try encoder.writeYCbCrBand()
            }
            try encoder.finish()
            return
        }
        let encoder = try ImageEncoder(
            stream: output, format: outputFormat, width: decoder.width, height: decoder.height,
            channels: decoder.channels, options: settings.encoding)
        let band = UnsafeMutableRawBufferPointer.allocate(
            byteCount: decoder.bytesPerRow * Self.rowsPerBand, alignment: 64)
        defer { band.deallocate() }
        while !decoder.isFinished {
            if isCancelled() { throw CancellationError() }
            let rows = try decoder.readRows(into: band, maxRows: Self.rowsPerBand)
            if rows == 0 { break }
            if !filter.isIdentity {
                filter.apply(to: band, width: decoder.width, rows: rows, channels: decoder.channels)
            }
            try encoder.writeRows(UnsafeRawBufferPointer(band), count: rows)
        }
        try encoder.finish()
    }
}

extension PhotoDeveloper {
    /// The fast path's loop: a band of YCbCr planes is decoded, filtered into `target`
    /// (4:2:0, `DR_YCC_BAND_ROWS` rows) and handed to `consume` with the number of its
    /// rows inside the image, until the image is done. Tests consume the planes directly.
    func filterYCbCrBands(
        into target: dr_ycc_band, isCancelled: () -> Bool, consume: (_ rows: Int) throws(ImagingError) -> Void
    ) throws {
        while !decoder.isFinished {
            if isCancelled() { throw CancellationError() }
            let band = try decoder.readYCbCrBand()
            if band.rows == 0 { break }
            filter.apply(ycc: band, to: target)
            try consume(Int(band.rows))
        }
    }
}

/// A whole image as 4:2:0 YCbCr planes, padded to 16 × 16 luma samples with the edges
/// repeated: what the fast path hands to the DCT. For tests and measurements only (a
/// developer never holds a whole image).
struct YCbCr420Image {
    var width: Int
    var height: Int
    var paddedWidth: Int
    var paddedHeight: Int
    var y: [UInt8]
    var cb: [UInt8]
    var cr: [UInt8]
}

extension PhotoDeveloper {
    /// The fast path's filtered planes for the whole image, as the encoder would get them.
    func filteredYCbCrImage(isCancelled: () -> Bool = { false }) throws -> YCbCr420Image {
        let rows = Int(DR_YCC_BAND_ROWS)
        let paddedWidth = (decoder.width + 15) / 16 * 16
        let paddedHeight = (decoder.height + 15) / 16 * 16
        var image = YCbCr420Image(
            width: decoder.width, height: decoder.height, paddedWidth: paddedWidth, paddedHeight: paddedHeight,
            y: [UInt8](repeating: 0, count: paddedWidth * paddedHeight),
            cb: [UInt8](repeating: 0, count: paddedWidth * paddedHeight / 4),
            cr: [UInt8](repeating: 0, count: paddedWidth * paddedHeight / 4))
        let y = UnsafeMutablePointer<UInt8>.allocate(capacity: paddedWidth * rows)
        let cb = UnsafeMutablePointer<UInt8>.allocate(capacity: paddedWidth * rows / 4)
        let cr = UnsafeMutablePointer<UInt8>.allocate(capacity: paddedWidth * rows / 4)
        defer { y.deallocate(); cb.deallocate(); cr.deallocate() }
        let target = dr_ycc_band(
            y: y, cb: cb, cr: cr, y_stride: paddedWidth, c_stride: paddedWidth / 2, h_sub: 2, v_sub: 2,
            padded_width: UInt32(paddedWidth), rows: UInt32(rows), cb_above: nil, cr_above: nil, cb_below: nil,
            cr_below: nil)
        var band = 0
        try filterYCbCrBands(into: target, isCancelled: isCancelled) { _ in
            let lumaOffset = band * rows * paddedWidth
            for i in 0..<(rows * paddedWidth) { image.y[lumaOffset + i] = y[i] }
            for i in 0..<(rows * paddedWidth / 4) {
                image.cb[lumaOffset / 4 + i] = cb[i]
                image.cr[lumaOffset / 4 + i] = cr[i]
            }
            band += 1
        }
        return image
    }
}
