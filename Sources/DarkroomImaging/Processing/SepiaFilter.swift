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
