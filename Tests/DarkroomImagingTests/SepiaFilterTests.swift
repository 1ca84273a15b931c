import DarkroomImaging
import DarkroomTestSupport
import XCTest

final class SepiaFilterTests: XCTestCase {
    private func filtered(_ pixel: [UInt8], amount: Double) -> [UInt8] {
        var pixels = pixel
        let channels = pixel.count
        pixels.withUnsafeMutableBytes { SepiaFilter(amount: amount).apply(to: $0.baseAddress!, pixelCount: 1, channels: channels) }
        return pixels
    }

    func testHandComputedValues() {
        // amount 1: R' = .393R + .769G + .189B, G' = .349R + .686G + .168B, B' = .272R + .534G + .131B
        // (100, 150, 200): R' = 39.3 + 115.35 + 37.8 = 192.45 → 192; G' = 34.9 + 102.9 + 33.6 = 171.4 → 171;
        //                  B' = 27.2 + 80.1 + 26.2 = 133.5 → tie (134 by the exact decimal, either is allowed);
        XCTAssertEqual(Array(filtered([100, 150, 200], amount: 1).prefix(2)), [192, 171])
        XCTAssertTrue([133, 134].contains(filtered([100, 150, 200], amount: 1)[2]))
        // (10, 20, 30) at 1: R' = 3.93 + 15.38 + 5.67 = 24.98 → 25; G' = 3.49 + 13.72 + 5.04 = 22.25 → 22;
        //                    B' = 2.72 + 10.68 + 3.93 = 17.33 → 17
        XCTAssertEqual(filtered([10, 20, 30], amount: 1), [25, 22, 17])
        // amount 0.8 (k = 0.2): rows [.5144 .6152 .1512] [.2792 .7488 .1344] [.2176 .4272 .3048]
        // (100, 150, 200): R' = 51.44 + 92.28 + 30.24 = 173.96 → 174; G' = 27.92 + 112.32 + 26.88 = 167.12 → 167;
        //                  B' = 21.76 + 64.08 + 60.96 = 146.8 → 147
        XCTAssertEqual(filtered([100, 150, 200], amount: 0.8), [174, 167, 147])
        // White clamps: R' = 255 × 1.2808 → 255, G' = 255 × 1.1624 → 255, B' = 255 × .9496 = 242.148 → 242
        XCTAssertEqual(filtered([255, 255, 255], amount: 0.8), [255, 255, 242])
        // Full sepia white: B' = 255 × .937 = 238.935 → 239; R and G clamp.
        XCTAssertEqual(filtered([255, 255, 255], amount: 1), [255, 255, 239])
        XCTAssertEqual(filtered([0, 0, 0], amount: 1), [0, 0, 0])
    }

    func testAmountZeroIsTheIdentity() {
        var generator = SeededGenerator(state: 3)
        var pixels = (0..<30_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let original = pixels
        pixels.withUnsafeMutableBytes { SepiaFilter(amount: 0).apply(to: $0.baseAddress!, pixelCount: 10_000, channels: 3) }
        XCTAssertEqual(pixels, original)
        XCTAssertTrue(SepiaFilter(amount: 0).isIdentity)
        XCTAssertFalse(SepiaFilter(amount: 0.01).isIdentity)
    }

    func testAmountIsClampedToZeroThroughOne() {
        XCTAssertEqual(SepiaFilter(amount: 7).matrix, SepiaMatrix(amount: 1))
        XCTAssertEqual(SepiaFilter(amount: -3).matrix, SepiaMatrix(amount: 0))
        XCTAssertEqual(SepiaFilter(amount: .nan).matrix, SepiaMatrix(amount: 0))
        XCTAssertEqual(filtered([100, 150, 200], amount: 1.5), filtered([100, 150, 200], amount: 1))
    }

    /// Over a lattice of the whole RGB cube, the kernel equals the formula rounded to
    /// nearest, except at exact ties where it may be either neighbour.
    func testKernelEqualsTheFormulaAcrossTheColourCube() {
        for amount in [0.8, 1.0, 0.37] {
            var pixels: [UInt8] = []
            for r in stride(from: 0, through: 255, by: 5) {
                for g in stride(from: 0, through: 255, by: 3) {
                    for b in stride(from: 0, through: 255, by: 1) { pixels += [UInt8(r), UInt8(g), UInt8(b)] }
                }
            }
            let input = pixels
            pixels.withUnsafeMutableBytes {
                SepiaFilter(amount: amount).apply(to: $0.baseAddress!, pixelCount: input.count / 3, channels: 3)
            }
            var ties = 0, mismatches = 0
            for i in stride(from: 0, to: input.count, by: 3) {
                let exact = Reference.sepia(Int(input[i]), Int(input[i + 1]), Int(input[i + 2]), amount: amount)
                for (c, value) in [exact.0, exact.1, exact.2].enumerated() {
                    let got = Int(pixels[i + c])
                    if Reference.isNearTie(value) {
                        ties += 1
                        if abs(Double(got) - value) > 0.5001 { mismatches += 1 }
                    } else if got != Reference.level(value) {
                        mismatches += 1
                    }
                }
            }
            XCTAssertEqual(mismatches, 0, "amount \(amount): \(mismatches) channels off (ties: \(ties))")
        }
    }

    func testAlphaIsUntouched() {
        var generator = SeededGenerator(state: 11)
        var pixels = (0..<4000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let alphas = stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] }
        let original = pixels
        pixels.withUnsafeMutableBytes { SepiaFilter(amount: 1).apply(to: $0.baseAddress!, pixelCount: 1000, channels: 4) }
        XCTAssertEqual(stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] }, alphas)
        XCTAssertNotEqual(pixels, original)
        // The colour of an RGBA pixel is filtered exactly as the same RGB pixel.
        XCTAssertEqual(Array(filtered([100, 150, 200, 9], amount: 0.8).prefix(3)), filtered([100, 150, 200], amount: 0.8))
        XCTAssertEqual(filtered([100, 150, 200, 9], amount: 0.8)[3], 9)
    }

    func testCancellationStopsBetweenBands() {
        let height = SepiaFilter.rowsPerBand * 10
        var image = Image(width: 50, height: height, channels: 3, pixels: [UInt8](repeating: 100, count: 50 * height * 3))
        var checks = 0
        XCTAssertThrowsError(
            try SepiaFilter().apply(to: &image) {
                checks += 1
                return checks > 3
            }
        ) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertEqual(checks, 4)
        // Exactly three bands were filtered; the rest is untouched.
        let filteredRows = image.pixels.chunked(by: image.bytesPerRow).filter { $0.first != 100 }.count
        XCTAssertEqual(filteredRows, 3 * SepiaFilter.rowsPerBand)
    }

    func testUncancelledWholeImageFilterMatchesTheFormula() throws {
        var image = try Fixtures.decode("png-rose-im.png")
        let expected = Reference.filter(image, amount: 0.8)
        try SepiaFilter(amount: 0.8).apply(to: &image)
        assertPixels(image, expected, tolerance: 1)
    }
}

extension Array {
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
