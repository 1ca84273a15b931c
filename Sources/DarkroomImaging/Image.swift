/// A decoded image: 8-bit interleaved RGB or RGBA rows, top to bottom, no padding.
public struct Image: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 3 (RGB) or 4 (RGBA).
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 3 || channels == 4, "channels must be 3 or 4")
        precondition(pixels.count == width * height * channels, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public var hasAlpha: Bool { channels == 4 }
    public var bytesPerRow: Int { width * channels }

    /// The channel values of the pixel at (`x`, `y`).
    public subscript(x: Int, y: Int) -> ArraySlice<UInt8> {
        let start = (y * width + x) * channels
        return pixels[start..<start + channels]
    }
}

/// Limits checked from the header, before any pixel memory is allocated.
public struct DecodingLimits: Sendable, Equatable {
    /// Width × height above which an image is refused as `too-many-pixels`. Default 100,000,000 (SPEC §1).
    public var maxPixels: UInt64

    public init(maxPixels: UInt64 = 100_000_000) {
        self.maxPixels = maxPixels
    }
}
