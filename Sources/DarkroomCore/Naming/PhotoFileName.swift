/// Photo names → file names inside a manifest's outbox folder (SPEC §3).
public enum PhotoFileName {
    /// The longest sanitised text kept, in UTF-8 bytes, before the `~hash` suffix: 120.
    /// With the 11-byte suffix and an extension the name stays far below `NAME_MAX` (255).
    public static let maxBaseBytes = 120

    /// The length of the `~` + hexadecimal suffix added to names that had to change: 11.
    public static let suffixBytes = 1 + hashDigits

    private static let hashDigits = 10

    /// A safe, deterministic file base name (no extension) for `photoName`.
    ///
    /// Never a path separator (`/` and `\` become `_`), no control characters (C0, DEL and
    /// C1 become `_`), no leading dot (it becomes `_`), never empty, `.` or `..`, and at
    /// most ``maxBaseBytes`` UTF-8 bytes of text, cut on a character boundary.
    ///
    /// Distinct names never share a file name: a name that needed no change is used as
    /// is, and any name that was altered or cut gets `~` and the first 10 hexadecimal
    /// digits of the SHA-256 of its UTF-8 bytes appended. So `a/b` becomes `a_b~…` while a
    /// genuine `a_b` stays `a_b`. A name that already ends in `~` and 10 hexadecimal
    /// digits is treated as altered too, so nobody can name a photo after another
    /// photo's hashed file name. At most `maxBaseBytes + 11` bytes in all.
    public static func baseName(for photoName: String) -> String {
        var scalars = String.UnicodeScalarView()
        var altered = false
        for scalar in photoName.unicodeScalars {
            if scalar == "/" || scalar == "\\" || isControl(scalar) || (scalars.isEmpty && scalar == ".") {
                scalars.append("_")
                altered = true
            } else {
                scalars.append(scalar)
            }
        }
        var text = String(scalars)
        if text.isEmpty {
            text = "_"
            altered = true
        }
        if text.utf8.count > maxBaseBytes {
            text = prefix(of: text, maxBytes: maxBaseBytes)
            altered = true
        }
        if !altered, endsWithHashSuffix(photoName) {
            altered = true
        }
        guard altered else { return text }
        return text + "~" + String(SHA256.hex(photoName.utf8).prefix(hashDigits))
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The longest prefix of whole characters (grapheme clusters) within `maxBytes`, so
    /// no accent is separated from its letter. A single character larger than the limit
    /// (a letter with hundreds of combining marks) is cut between scalars instead, since
    /// the result must not be empty.
    private static func prefix(of text: String, maxBytes: Int) -> String {
        var end = text.startIndex
        var bytes = 0
        while end < text.endIndex {
            let next = text.index(after: end)
            let size = text.utf8.distance(from: end, to: next)
            if bytes + size > maxBytes { break }
            bytes += size
            end = next
        }
        if end > text.startIndex { return String(text[..<end]) }

        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            if bytes + size > maxBytes { break }
            bytes += size
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// Whether `name` ends in `~` and 10 hexadecimal digits (either case).
    private static func endsWithHashSuffix(_ name: String) -> Bool {
        let tail = Array(name.utf8.suffix(suffixBytes))
        guard tail.count == suffixBytes, tail[0] == UInt8(ascii: "~") else { return false }
        return tail.dropFirst().allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
