import CDarkroomCodecs
@testable import DarkroomImaging
import DarkroomTestSupport
import Foundation
import XCTest

/// The JPEG → JPEG fast path (sepia on the YCbCr planes) against the exact path (decode to
/// RGB, sepia, encode from RGB), compared before encoding: the fast path's 4:2:0 planes,
/// decoded the standard way (libjpeg's default fancy upsampling and YCbCr → RGB), against
/// the exact path's filtered RGB pixels, and against the exact path's own 4:2:0 planes (its
/// RGB through libjpeg's RGB → YCbCr and box downsampler, decoded the same way).
final class FastPathTests: XCTestCase {
    static let intensities = [0.0, 0.8, 1.0]

    /// Every layout of chroma the fast path handles, odd sizes, progressive, restart markers.
    func testEveryLayoutIsWithin45dBOfTheExactPath() throws {
        var sources: [(String, Data)] = [
            "jpeg-420.jpg", "jpeg-422.jpg", "jpeg-444.jpg", "jpeg-progressive.jpg", "jpeg-restart.jpg",
            "jpeg-trailing-garbage.jpg",
        ].map { ($0, Fixtures.data($0)) }
        let rose = try Fixtures.decode("png-rose-im.png")
        for (width, height) in [(69, 45), (37, 23), (17, 1), (1, 17)] {
            let image = crop(rose, width: width, height: height)
            for factors in [(1, 1), (2, 1), (2, 2)] {
                for (progressive, restart) in [(false, 0), (true, 0), (false, 1)] {
                    let name = "\(width)x\(height) Y\(factors.0)x\(factors.1)\(progressive ? " progressive" : "")\(restart > 0 ? " restart" : "")"
                    sources.append((name, try encodeJPEG(image, factors: factors, progressive: progressive, restartRows: restart)))
                }
            }
        }
        for (name, data) in sources {
            for intensity in Self.intensities {
                try assertClose(data, intensity: intensity, name)
            }
        }
    }

    /// Bright and saturated colours leave the RGB cube, so the clamps matter: a purely affine
    /// map of YCbCr would be far off here.
    func testHighlightsThatClampStayWithin45dB() throws {
        let image = brightSaturatedImage(width: 96, height: 64)
        let filtered = Reference.filter(image, amount: 0.8)
        let clampedShare = Double(stride(from: 0, to: filtered.pixels.count, by: 3).filter { filtered.pixels[$0] == 255 }.count)
            / Double(image.width * image.height)
        XCTAssertGreaterThan(clampedShare, 0.2, "the test image should clamp R' on many pixels")
        for factors in [(1, 1), (2, 1), (2, 2)] {
            let data = try encodeJPEG(image, factors: factors, progressive: false, restartRows: 0, quality: 95)
            for intensity in Self.intensities {
                try assertClose(data, intensity: intensity, "bright Y\(factors.0)x\(factors.1)")
            }
        }
    }

    func testTheEncodedFastPathIsCloseToTheEncodedExactPath() throws {
        for name in ["jpeg-420.jpg", "jpeg-422.jpg", "jpeg-444.jpg", "jpeg-progressive.jpg"] {
            let fast = try develop(Fixtures.data(name), DevelopSettings(intensity: 0.8))
            let exact = try develop(Fixtures.data(name), DevelopSettings(intensity: 0.8, exact: true))
            XCTAssertNotEqual(fast, exact, name)
            let a = try ImageDecoder.decode(ByteStream.reading(data: fast))
            let b = try ImageDecoder.decode(ByteStream.reading(data: exact))
            XCTAssertEqual(a.width, b.width)
            XCTAssertEqual(a.height, b.height)
            XCTAssertGreaterThan(psnr(a, b), 40, name)
        }
    }

    func testOnlyYCbCrJPEGToJPEGTakesTheFastPath() throws {
        func fast(_ name: String, _ settings: DevelopSettings = DevelopSettings()) throws -> Bool {
            try PhotoDeveloper(input: ByteStream.reading(data: Fixtures.data(name)), settings: settings).usesYCbCrFastPath
        }
        XCTAssertTrue(try fast("jpeg-420.jpg"))
        XCTAssertTrue(try fast("jpeg-progressive.jpg", DevelopSettings(format: .jpeg)))
        XCTAssertFalse(try fast("jpeg-420.jpg", DevelopSettings(exact: true)))
        XCTAssertFalse(try fast("jpeg-420.jpg", DevelopSettings(format: .png)))
        let rose = try Fixtures.decode("png-rose-im.png")
        let layout440 = try encodeJPEG(rose, factors: (1, 2), progressive: false, restartRows: 0)
        XCTAssertFalse(try PhotoDeveloper(input: ByteStream.reading(data: layout440)).usesYCbCrFastPath, "4:4:0")
        for name in ["jpeg-gray.jpg", "jpeg-cmyk-adobe.jpg", "jpeg-ycck-adobe.jpg", "jpeg-ycck-420.jpg", "png-rgb8.png"] {
            XCTAssertFalse(try fast(name), name)
            XCTAssertFalse(try fast(name, DevelopSettings(format: .jpeg)), name)
        }
    }

    /// `exact: true` is the RGB pipeline, byte for byte.
    func testExactIsTheRGBPipelineByteForByte() throws {
        for name in ["jpeg-420.jpg", "jpeg-422.jpg", "jpeg-444.jpg", "jpeg-progressive.jpg", "jpeg-restart.jpg"] {
            let data = Fixtures.data(name)
            let developed = try develop(data, DevelopSettings(intensity: 0.8, exact: true))
            let decoder = try ImageDecoder(stream: ByteStream.reading(data: data))
            XCTAssertFalse(decoder.providesYCbCrPlanes)
            var image = try decoder.decodeImage()
            try SepiaFilter(amount: 0.8).apply(to: &image)
            let output = ByteStream.writingToMemory()
            try ImageEncoder.encode(image, as: .jpeg, to: output)
            XCTAssertEqual(developed, output.writtenBytes(), name)
        }
    }

    /// Damage is reported with the same code (and libjpeg's same message) on both paths.
    func testDamageGivesTheSameErrorsAsTheExactPath() throws {
        var inputs: [(String, Data)] = [
            "bad-jpeg-corrupt-scan.jpg", "bad-jpeg-progressive-truncated.jpg", "bad-jpeg-soi-garbage.jpg",
            "bad-jpeg-truncated.jpg", "bomb-jpeg-60000x60000.jpg",
        ].map { ($0, Fixtures.data($0)) }
        let image = crop(try Fixtures.decode("png-rose-im.png"), width: 64, height: 40)
        for progressive in [false, true] {
            let whole = try encodeJPEG(image, factors: (2, 1), progressive: progressive, restartRows: 0)
            for cut in [whole.count / 3, whole.count / 2, whole.count - 40, whole.count - 2] {
                inputs.append(("\(progressive ? "progressive" : "baseline") cut at \(cut)", whole.prefix(cut)))
            }
            var flipped = whole
            flipped[whole.count / 2] ^= 0x5A
            inputs.append(("\(progressive ? "progressive" : "baseline") with a flipped byte", flipped))
        }
        var failures = 0
        for (name, data) in inputs {
            let fast = outcome { try develop(data, DevelopSettings()) }
            let exact = outcome { try develop(data, DevelopSettings(exact: true)) }
            XCTAssertEqual(fast.code, exact.code, "\(name): fast \(fast), exact \(exact)")
            XCTAssertEqual(fast.message, exact.message, name)
            if fast.code != nil { failures += 1 }
        }
        XCTAssertGreaterThanOrEqual(failures, 10, "most of these inputs are damaged")
    }

    func testCancellationIsCheckedBetweenBands() throws {
        var pixels = [UInt8](repeating: 0, count: 40 * 64 * 3)
        for i in pixels.indices { pixels[i] = UInt8(i % 251) }
        let data = try encodeJPEG(
            Image(width: 40, height: 64, channels: 3, pixels: pixels), factors: (2, 2), progressive: false, restartRows: 0)
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: data))
        XCTAssertTrue(developer.usesYCbCrFastPath)
        var checks = 0
        XCTAssertThrowsError(
            try developer.run(to: ByteStream.writingToMemory()) {
                checks += 1
                return checks == 2
            }
        ) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(checks, 2)
        XCTAssertEqual(developer.decoder.rowsRead, 16, "one band of 16 rows, then the check that cancelled")
    }

    // MARK: - Helpers

    private func develop(_ data: Data, _ settings: DevelopSettings) throws -> Data {
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: data), settings: settings)
        let output = ByteStream.writingToMemory()
        try developer.run(to: output)
        return output.writtenBytes()
    }

    private func outcome(_ body: () throws -> Data) -> (code: String?, message: String?) {
        do {
            _ = try body()
            return (nil, nil)
        } catch let error as ImagingError {
            return (error.code.rawValue, error.message)
        } catch {
            return ("unexpected", "\(error)")
        }
    }

    /// Fast planes vs the exact path: within 45 dB of its RGB, or of its own 4:2:0 planes where
    /// 4:2:0 itself costs more than that (tiny, chroma-rich images); and not much further from
    /// its RGB than its own planes are, which catches a systematic fault such as misplaced
    /// chroma (3 dB: the kernel's 16-bit rounding shows on images of a few dozen pixels).
    private func assertClose(_ data: Data, intensity: Double, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let developer = try PhotoDeveloper(input: ByteStream.reading(data: data), settings: DevelopSettings(intensity: intensity))
        XCTAssertTrue(developer.usesYCbCrFastPath, name, file: file, line: line)
        let fast = StandardDecode.rgb(try developer.filteredYCbCrImage())
        var exact = try ImageDecoder.decode(ByteStream.reading(data: data))
        try SepiaFilter(amount: intensity).apply(to: &exact)
        let exactPlanes = StandardDecode.rgb(ExactPathPlanes.of(exact))
        let vsRGB = psnr(fast, exact), vsPlanes = psnr(fast, exactPlanes), exactOwn = psnr(exactPlanes, exact)
        // DARKROOM_PSNR_REPORT=1 prints the figures docs/fast-path.md quotes.
        if ProcessInfo.processInfo.environment["DARKROOM_PSNR_REPORT"] != nil {
            print(String(format: "PSNR\t%@\t%.1f\t%.2f\t%.2f\t%.2f", name, intensity, vsRGB, vsPlanes, exactOwn))
        }
        XCTAssertGreaterThanOrEqual(
            max(vsRGB, vsPlanes), 45, "\(name) at \(intensity): \(vsRGB) dB vs RGB, \(vsPlanes) dB vs 4:2:0", file: file, line: line)
        XCTAssertGreaterThanOrEqual(
            vsRGB, min(exactOwn, 60) - 3, "\(name) at \(intensity): the exact path's own 4:2:0 is at \(exactOwn) dB",
            file: file, line: line)
    }

    private func crop(_ image: Image, width: Int, height: Int) -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            let start = (y % image.height) * image.width * 3
            for x in 0..<width {
                let p = start + (x % image.width) * 3
                pixels += image.pixels[p..<p + 3]
            }
        }
        return Image(width: width, height: height, channels: 3, pixels: pixels)
    }

    private func brightSaturatedImage(width: Int, height: Int) -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x) / Double(width - 1), u = Double(y) / Double(height - 1)
                switch (x / 24 + y / 16) % 4 {
                case 0: pixels += [255, UInt8(200 + 55 * t), UInt8(180 + 75 * u)]  // near white
                case 1: pixels += [255, UInt8(255 * t), 0]  // saturated red to yellow
                case 2: pixels += [UInt8(255 * u), 255, UInt8(255 * t)]  // saturated greens
                default: pixels += [UInt8(230 + 25 * t), UInt8(230 + 25 * u), 255]  // bright blue-white
                }
            }
        }
        return Image(width: width, height: height, channels: 3, pixels: pixels)
    }

    private func encodeJPEG(
        _ image: Image, factors: (Int, Int), progressive: Bool, restartRows: Int, quality: Int = 90
    ) throws -> Data {
        let output = ByteStream.writingToMemory()
        let encoder = try ImageEncoder(
            jpegLayoutStream: output, width: image.width, height: image.height, channels: 3, quality: quality,
            lumaFactors: factors, progressive: progressive, restartRows: restartRows)
        try image.pixels.withUnsafeBytes { try encoder.writeRows($0, count: image.height) }
        try encoder.finish()
        return output.writtenBytes()
    }
}

/// libjpeg's default decode of 4:2:0 planes: h2v2 "fancy" upsampling (jdsample.c) and the
/// integer YCbCr → RGB of jdcolor.c.
enum StandardDecode {
    static func rgb(_ p: YCbCr420Image) -> Image {
        let cw = p.paddedWidth / 2, ch = p.paddedHeight / 2
        var pixels = [UInt8](repeating: 0, count: p.width * p.height * 3)
        var cbRow = [Int](repeating: 0, count: p.paddedWidth), crRow = cbRow
        for y in 0..<p.height {
            let cy = y / 2
            let ny = min(max(y % 2 == 1 ? cy + 1 : cy - 1, 0), ch - 1)
            for (plane, isCr) in [(p.cb, false), (p.cr, true)] {
                for c in 0..<cw {
                    let this = Int(plane[cy * cw + c]) * 3 + Int(plane[ny * cw + c])
                    let last = c > 0 ? Int(plane[cy * cw + c - 1]) * 3 + Int(plane[ny * cw + c - 1]) : this
                    let next = c + 1 < cw ? Int(plane[cy * cw + c + 1]) * 3 + Int(plane[ny * cw + c + 1]) : this
                    let left = (this * 3 + last + 8) >> 4, right = (this * 3 + next + 7) >> 4
                    if isCr { crRow[2 * c] = left; crRow[2 * c + 1] = right } else { cbRow[2 * c] = left; cbRow[2 * c + 1] = right }
                }
            }
            for x in 0..<p.width {
                let luma = Int(p.y[y * p.paddedWidth + x]), b = cbRow[x] - 128, r = crRow[x] - 128
                let o = (y * p.width + x) * 3
                pixels[o] = clamp(luma + ((91881 * r + 32768) >> 16))
                pixels[o + 1] = clamp(luma + ((-22554 * b - 46802 * r + 32768) >> 16))
                pixels[o + 2] = clamp(luma + ((116130 * b + 32768) >> 16))
            }
        }
        return Image(width: p.width, height: p.height, channels: 3, pixels: pixels)
    }

    static func clamp(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }
}

/// The planes the exact path's encoder hands to its DCT: libjpeg's integer RGB → YCbCr
/// (jccolor.c) and h2v2 box downsampling with its alternating rounding bias (jcsample.c).
enum ExactPathPlanes {
    static func of(_ image: Image) -> YCbCr420Image {
        let pw = (image.width + 15) / 16 * 16, ph = (image.height + 15) / 16 * 16
        var y = [UInt8](repeating: 0, count: pw * ph)
        var cbFull = [Int](repeating: 0, count: pw * ph), crFull = cbFull
        for row in 0..<ph {
            for col in 0..<pw {
                let p = (min(row, image.height - 1) * image.width + min(col, image.width - 1)) * 3
                let (r, g, b) = (Int(image.pixels[p]), Int(image.pixels[p + 1]), Int(image.pixels[p + 2]))
                y[row * pw + col] = UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
                cbFull[row * pw + col] = (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16
                crFull[row * pw + col] = (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16
            }
        }
        var cb = [UInt8](repeating: 0, count: pw * ph / 4), cr = cb
        for row in 0..<ph / 2 {
            var bias = 1
            for col in 0..<pw / 2 {
                let i = 2 * row * pw + 2 * col
                cb[row * pw / 2 + col] = UInt8((cbFull[i] + cbFull[i + 1] + cbFull[i + pw] + cbFull[i + pw + 1] + bias) >> 2)
                cr[row * pw / 2 + col] = UInt8((crFull[i] + crFull[i + 1] + crFull[i + pw] + crFull[i + pw + 1] + bias) >> 2)
                bias ^= 3
            }
        }
        return YCbCr420Image(width: image.width, height: image.height, paddedWidth: pw, paddedHeight: ph, y: y, cb: cb, cr: cr)
    }
}

/// The kernel alone, sample by sample, on random planes: the exact path's steps (libjpeg's
/// upsampling and colour conversions, the W3C formula) computed here in integers and doubles.
final class YCbCrKernelTests: XCTestCase {
    func testEverySampleIsWithinTwoLevelsOfTheExactSteps() {
        var generator = SeededGenerator(seed: 0x5E91A)
        let width = 64, rows = Int(DR_YCC_BAND_ROWS)
        for (hSub, vSub) in [(1, 1), (2, 1), (2, 2)] {
            for amount in [0.0, 0.8, 1.0] {
                let cw = width / hSub, ch = rows / vSub
                var y = (0..<(width * rows)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                var cb = (0..<(cw * (ch + 2))).map { _ in UInt8.random(in: 0...255, using: &generator) }
                var cr = (0..<(cw * (ch + 2))).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Bright rows, so that the clamps are exercised on every path.
                for i in 0..<(width * 4) { y[i] = 200 + y[i] % 56 }
                var outY = [UInt8](repeating: 0, count: width * rows)
                var outCb = [UInt8](repeating: 0, count: width * rows / 4), outCr = outCb
                y.withUnsafeMutableBufferPointer { y in
                    cb.withUnsafeMutableBufferPointer { cb in
                        cr.withUnsafeMutableBufferPointer { cr in
                            outY.withUnsafeMutableBufferPointer { oy in
                                outCb.withUnsafeMutableBufferPointer { ocb in
                                    outCr.withUnsafeMutableBufferPointer { ocr in
                                        // Chroma rows 1...ch are the band's; 0 and ch + 1 lie above and below it.
                                        let input = dr_ycc_band(
                                            y: y.baseAddress, cb: cb.baseAddress! + cw, cr: cr.baseAddress! + cw,
                                            y_stride: width, c_stride: cw, h_sub: UInt32(hSub), v_sub: UInt32(vSub),
                                            padded_width: UInt32(width), rows: UInt32(rows),
                                            cb_above: UnsafePointer(cb.baseAddress!), cr_above: UnsafePointer(cr.baseAddress!),
                                            cb_below: UnsafePointer(cb.baseAddress! + cw * (ch + 1)),
                                            cr_below: UnsafePointer(cr.baseAddress! + cw * (ch + 1)))
                                        let output = dr_ycc_band(
                                            y: oy.baseAddress, cb: ocb.baseAddress, cr: ocr.baseAddress, y_stride: width,
                                            c_stride: width / 2, h_sub: 2, v_sub: 2, padded_width: UInt32(width),
                                            rows: UInt32(rows), cb_above: nil, cr_above: nil, cb_below: nil, cr_below: nil)
                                        SepiaFilter(amount: amount).apply(ycc: input, to: output)
                                    }
                                }
                            }
                        }
                    }
                }
                // The exact steps.
                func chroma(_ plane: [UInt8], _ x: Int, _ row: Int) -> Int {
                    func at(_ c: Int, _ r: Int) -> Int { Int(plane[(r + 1) * cw + min(max(c, 0), cw - 1)]) }
                    let c = x / hSub, r = row / vSub
                    switch (hSub, vSub) {
                    case (1, 1): return at(c, r)
                    case (2, 1):
                        return x % 2 == 0 ? (3 * at(c, r) + at(c - 1, r) + 1) >> 2 : (3 * at(c, r) + at(c + 1, r) + 2) >> 2
                    default:
                        let far = row % 2 == 0 ? r - 1 : r + 1
                        func sum(_ c: Int) -> Int { 3 * at(c, r) + at(c, far) }
                        return x % 2 == 0 ? (3 * sum(c) + sum(c - 1) + 8) >> 4 : (3 * sum(c) + sum(c + 1) + 7) >> 4
                    }
                }
                var rgb = [[Int]](repeating: [0, 0, 0], count: width * rows)
                for row in 0..<rows {
                    for x in 0..<width {
                        let l = Int(y[row * width + x]), b = chroma(cb, x, row) - 128, q = chroma(cr, x, row) - 128
                        let r = min(max(l + ((91881 * q + 32768) >> 16), 0), 255)
                        let g = min(max(l + ((-22554 * b - 46802 * q + 32768) >> 16), 0), 255)
                        let bl = min(max(l + ((116130 * b + 32768) >> 16), 0), 255)
                        let s = Reference.sepia(r, g, bl, amount: amount)
                        rgb[row * width + x] = [Reference.level(s.0), Reference.level(s.1), Reference.level(s.2)]
                    }
                }
                var worst = 0
                for row in 0..<rows {
                    for x in 0..<width {
                        let p = rgb[row * width + x]
                        let expected = (19595 * p[0] + 38470 * p[1] + 7471 * p[2] + 32768) >> 16
                        worst = max(worst, abs(expected - Int(outY[row * width + x])))
                    }
                }
                for row in 0..<(rows / 2) {
                    for cell in 0..<(width / 2) {
                        var sums = [0, 0, 0]
                        for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                            let p = rgb[(2 * row + dy) * width + 2 * cell + dx]
                            for c in 0..<3 { sums[c] += p[c] }
                        }
                        let expectedCb = (-0.16874 * Double(sums[0]) - 0.33126 * Double(sums[1]) + 0.5 * Double(sums[2])) / 4 + 128
                        let expectedCr = (0.5 * Double(sums[0]) - 0.41869 * Double(sums[1]) - 0.08131 * Double(sums[2])) / 4 + 128
                        worst = max(worst, Int((abs(expectedCb - Double(outCb[row * width / 2 + cell]))).rounded(.up)))
                        worst = max(worst, Int((abs(expectedCr - Double(outCr[row * width / 2 + cell]))).rounded(.up)))
                    }
                }
                XCTAssertLessThanOrEqual(worst, 2, "\(hSub)x\(vSub) at \(amount)")
                if ProcessInfo.processInfo.environment["DARKROOM_PSNR_REPORT"] != nil {
                    print("KERNEL\t\(hSub)x\(vSub)\t\(amount)\tworst \(worst)")
                }
            }
        }
    }
}
