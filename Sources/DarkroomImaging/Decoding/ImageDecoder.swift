import CDarkroomCodecs

/// Streams the rows of a JPEG or PNG image, a band at a time.
///
/// Opening reads only the header and checks the pixel limit, so a small file that
/// declares a huge image is refused before any pixel memory exists. Rows come out
/// as 8-bit RGB, or RGBA when the image has alpha (a PNG alpha channel or `tRNS`);
/// grayscale, palette, 16-bit and CMYK/YCCK inputs are converted.
///
/// Not thread-safe: one thread at a time. The decoder keeps `stream` alive.
public final class ImageDecoder {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// 3 or 4.
    public let channels: Int
    /// Colour components in the file: 1 (gray or palette), 2, 3, or 4 (CMYK or RGBA).
    public let sourceComponents: Int
    public let sourceBitDepth: Int
    /// A progressive JPEG or an Adam7-interlaced PNG.
    public let isProgressive: Bool
    /// The decoder hands out YCbCr planes (`readYCbCrBand`), not rows: see `init(stream:limits:preferYCbCrPlanes:)`.
    public let providesYCbCrPlanes: Bool
    public private(set) var rowsRead = 0

    private let stream: ByteStream
    private let decoder: OpaquePointer

    /// - Parameter preferYCbCrPlanes: for a 3-component YCbCr JPEG with 4:4:4, 4:2:2 or
    ///   4:2:0 chroma, hand out libjpeg's planes instead of RGB rows (the JPEG → JPEG fast
    ///   path); any other file still comes out as rows.
    public init(
        stream: ByteStream, limits: DecodingLimits = DecodingLimits(), preferYCbCrPlanes: Bool = false
    ) throws(ImagingError) {
        var info = dr_image_info()
        var error = dr_error()
        let options = preferYCbCrPlanes ? DR_DECODE_YCC_PLANES : 0
        guard let decoder = dr_decoder_open_with(stream.file, limits.maxPixels, options, &info, &error) else {
            throw ImagingError(error)
        }
        self.stream = stream
        self.decoder = decoder
        self.format = info.format == DR_FORMAT_JPEG ? .jpeg : .png
        self.width = Int(info.width)
        self.height = Int(info.height)
        self.channels = Int(info.channels)
        self.sourceComponents = Int(info.source_components)
        self.sourceBitDepth = Int(info.source_bit_depth)
        self.isProgressive = info.progressive_or_interlaced != 0
        self.providesYCbCrPlanes = info.ycc_planes != 0
    }

    public var bytesPerRow: Int { width * channels }
    public var isFinished: Bool { rowsRead >= height }

    /// Decodes up to `maxRows` rows into `buffer` (each `bytesPerRow` long, packed) and
    /// returns how many were decoded; 0 once every row has been read. After the last row
    /// the rest of the file is read too, so damage after the pixels is still an error.
    public func readRows(into buffer: UnsafeMutableRawBufferPointer, maxRows: Int) throws(ImagingError) -> Int {
        let rows = min(maxRows, buffer.count / bytesPerRow)
        precondition(rows > 0 || isFinished, "buffer too small for one row")
        var read: UInt32 = 0
        var error = dr_error()
        let status = dr_decoder_read_rows(
            decoder, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(rows), &read, &error)
        guard status == DR_OK else { throw ImagingError(error) }
        rowsRead += Int(read)
        return Int(read)
    }

    /// Decodes the next band of `DR_YCC_BAND_ROWS` luma rows into the decoder's own planes,
    /// valid until the next call; its `rows` is 0 once every row was read. As `readRows`,
    /// the last band also reads the rest of the file.
    func readYCbCrBand() throws(ImagingError) -> dr_ycc_band {
        precondition(providesYCbCrPlanes, "the decoder hands out rows")
        var band = dr_ycc_band()
        var error = dr_error()
        guard dr_decoder_read_ycc_band(decoder, &band, &error) == DR_OK else { throw ImagingError(error) }
        rowsRead += Int(band.rows)
        return band
    }

    /// Decodes every remaining row into one `Image`.
    public func decodeImage() throws(ImagingError) -> Image {
        precondition(!providesYCbCrPlanes, "the decoder hands out YCbCr planes")
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        var failure: ImagingError?
        pixels.withUnsafeMutableBytes { raw in
            do throws(ImagingError) {
                while !isFinished {
                    let offset = rowsRead * bytesPerRow
                    let band = UnsafeMutableRawBufferPointer(rebasing: raw[offset...])
                    if try readRows(into: band, maxRows: height - rowsRead) == 0 { break }
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    deinit {
        dr_decoder_close(decoder)
    }
}

extension ImageDecoder {
    /// Decodes a whole image from `stream`.
    public static func decode(_ stream: ByteStream, limits: DecodingLimits = DecodingLimits()) throws(ImagingError) -> Image {
        try ImageDecoder(stream: stream, limits: limits).decodeImage()
    }
}
