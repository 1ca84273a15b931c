/// What to do to a photograph: the filter intensity, the output format and the limits.
public struct DevelopSettings: Sendable, Equatable {
    /// Sepia amount, 0...1. Default 0.8.
    public var intensity: Double
    /// Default `.source`: the input's own format.
    public var format: OutputFormat
    public var encoding: EncodingOptions
    public var limits: DecodingLimits

    public init(
        intensity: Double = 0.8, format: OutputFormat = .source, encoding: EncodingOptions = EncodingOptions(),
        limits: DecodingLimits = DecodingLimits()
    ) {
        self.intensity = intensity
        self.format = format
        self.encoding = encoding
        self.limits = limits
    }
}

/// Develops one photograph: decode → sepia → encode, streamed a band of rows at a time.
///
/// Only one band (`rowsPerBand` rows) is in memory, never the whole image (an
/// interlaced PNG is the exception: Adam7 needs every pass). Creating a developer
/// reads the header, so `outputFormat` is known before the caller picks the output
/// file's name; `run(to:isCancelled:)` does the rest.
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

    public init(input: ByteStream, settings: DevelopSettings = DevelopSettings()) throws(ImagingError) {
        self.settings = settings
        self.decoder = try ImageDecoder(stream: input, limits: settings.limits)
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
