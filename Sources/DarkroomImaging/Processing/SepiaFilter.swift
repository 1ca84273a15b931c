import CDarkroomCodecs
import CDarkroomKernels

/// The sepia filter of SPEC §6 over 8-bit RGB(A) pixels, in place.
///
/// Each output channel is the matrix row times (R, G, B), rounded to nearest and
/// clamped to 0...255; alpha is untouched. The kernel is fixed point (coefficients
/// × 2²², 32-bit integer arithmetic, vectorised C in `CDarkroomKernels`): no floating
/// point, allocation or dynamic dispatch per pixel. Quantising the coefficients
/// moves a result by less than 10⁻⁴ of a level, so the output equals the exact
/// value rounded to nearest except where that value lies within 10⁻⁴ of a half
/// (exact ties do occur: the W3C coefficients have three decimals); there it may
/// be either neighbour.
///
/// A `SepiaFilter` is immutable and may be shared across threads.
public struct SepiaFilter: Sendable {
    public let matrix: SepiaMatrix
    /// The matrix in fixed point, row-major.
    private let fixedPoint: [Int32]

    /// Rows per band between two cancellation checks in `apply(to:isCancelled:)`:
    /// a few hundred kilopixels, well under a millisecond.
    public static let rowsPerBand = 64

    /// A filter for `amount` (default 0.8, the tutorial's `inputIntensity`).
    public init(amount: Double = 0.8) {
        matrix = SepiaMatrix(amount: amount)
        let scale = Double(1 << DR_SEPIA_SHIFT)
        fixedPoint = matrix.rows.joined().map { Int32(($0 * scale).rounded()) }
    }

    /// Whether the filter leaves every pixel as it is (amount 0).
    public var isIdentity: Bool { matrix.amount == 0 }

    /// Filters `pixelCount` packed pixels of `channels` (3 or 4) bytes at `pixels`.
    public func apply(to pixels: UnsafeMutableRawPointer, pixelCount: Int, channels: Int) {
        precondition(channels == 3 || channels == 4, "channels must be 3 or 4")
        fixedPoint.withUnsafeBufferPointer { m in
            dr_sepia_apply(pixels.assumingMemoryBound(to: UInt8.self), pixelCount, Int32(channels), m.baseAddress!)
        }
    }

    /// Filters packed rows in `buffer` (`rows` × `width` pixels of `channels` bytes).
    public func apply(to buffer: UnsafeMutableRawBufferPointer, width: Int, rows: Int, channels: Int) {
        precondition(buffer.count >= width * rows * channels, "buffer smaller than the rows")
        guard rows > 0, width > 0 else { return }
        apply(to: buffer.baseAddress!, pixelCount: width * rows, channels: channels)
    }

    /// Filters a band of decoded YCbCr planes into a band of 4:2:0 planes for the encoder
    /// (`dr_sepia_ycc_to_420`: the exact path's per-pixel steps, clamps included, in 16-bit
    /// fixed point). Both bands hold `DR_YCC_BAND_ROWS` rows of `input.padded_width` columns,
    /// edges repeated.
    func apply(ycc input: dr_ycc_band, to output: dr_ycc_band) {
        precondition(output.padded_width >= input.padded_width, "output band narrower than the input")
        var source = dr_ycc_planes(
            y: input.y, cb: input.cb, cr: input.cr, y_stride: input.y_stride, c_stride: input.c_stride,
            chroma_h_sub: input.h_sub, chroma_v_sub: input.v_sub, cb_above: input.cb_above, cr_above: input.cr_above,
            cb_below: input.cb_below, cr_below: input.cr_below)
        var target = dr_ycc_planes(
            y: output.y, cb: output.cb, cr: output.cr, y_stride: output.y_stride, c_stride: output.c_stride,
            chroma_h_sub: output.h_sub, chroma_v_sub: output.v_sub, cb_above: nil, cr_above: nil, cb_below: nil,
            cr_below: nil)
        let status = fixedPoint.withUnsafeBufferPointer { m in
            dr_sepia_ycc_to_420(&source, &target, input.padded_width, UInt32(DR_YCC_BAND_ROWS), m.baseAddress!)
        }
        precondition(status == 0, "YCbCr subsampling \(input.h_sub)x\(input.v_sub) reached the kernel")
    }

    /// Filters `image` in bands of `rowsPerBand` rows, calling `isCancelled` before each band.
    ///
    /// - Throws: `CancellationError` when `isCancelled` answers true; the image is then
    ///   partly filtered and should be discarded.
    public func apply(to image: inout Image, isCancelled: () -> Bool = { false }) throws(CancellationError) {
        let width = image.width, height = image.height, channels = image.channels
        var cancelled = false
        image.pixels.withUnsafeMutableBytes { raw in
            var row = 0
            while row < height {
                if isCancelled() {
                    cancelled = true
                    return
                }
                let rows = min(Self.rowsPerBand, height - row)
                apply(to: raw.baseAddress! + row * width * channels, pixelCount: rows * width, channels: channels)
                row += rows
            }
        }
        if cancelled { throw CancellationError() }
    }
}
