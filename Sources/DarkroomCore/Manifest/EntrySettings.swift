import DarkroomImaging

/// How one entry is developed: the filter intensity and the output encoding.
public struct EntrySettings: Sendable, Hashable {
    /// The sepia amount, 0…1. Default 0.8 (the tutorial's `inputIntensity`).
    public var intensity: Double
    /// The output format. Default ``OutputFormat/source`` (same as the input).
    public var format: OutputFormat
    /// JPEG quality, 1…100. Default 90. Part of the fingerprint even for PNG output, so
    /// that a manifest edit is always seen as a change rather than guessed about.
    public var quality: Int

    /// The intensity used when neither the entry, the manifest nor the options set one.
    public static let defaultIntensity = 0.8
    /// The quality used when neither the entry, the manifest nor the options set one.
    public static let defaultQuality = 90

    /// Settings with the given values; every argument has the documented default
    /// (intensity 0.8, format `.source`, quality 90). Values are stored as given: range
    /// checks belong to the manifest parser, which can say which key was wrong.
    public init(intensity: Double = EntrySettings.defaultIntensity, format: OutputFormat = .source, quality: Int = EntrySettings.defaultQuality) {
        self.intensity = intensity
        self.format = format
        self.quality = quality
    }

    /// Stable text used to decide "settings unchanged" across runs, e.g.
    /// `"intensity=0.8 format=source quality=90"`.
    ///
    /// The intensity is rounded to 4 decimals and printed without trailing zeros, so the
    /// same value always gives the same text whatever arithmetic produced it
    /// (`0.1 + 0.7` and `0.8` agree), and a difference too small to change a pixel does
    /// not force a re-develop.
    public var fingerprint: String {
        "intensity=\(Self.decimal(intensity)) format=\(format.rawValue) quality=\(quality)"
    }

    /// `x` with at most 4 decimals and no trailing zeros: 0.8 → "0.8", 1 → "1", 0.12345 → "0.1235".
    static func decimal(_ x: Double) -> String {
        let scaled = (x * 10_000).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return "\(x)" }
        let units = Int64(scaled)
        let magnitude = units.magnitude
        var text = units < 0 ? "-" : ""
        text += String(magnitude / 10_000)
        let fraction = magnitude % 10_000
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 4 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }
}
