/// Writes journal values as JSON text, byte by byte.
///
/// Hand-written rather than `JSONSerialization` so that keys come out in the order
/// given (a journal is read by people too, and `time`/`event` first makes it legible)
/// and so that the same record always gives the same bytes.
struct JSONLineEncoder {
    var bytes: [UInt8] = []

    init(capacity: Int = 192) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func key(_ key: String, first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string. `"` and `\` are escaped, control characters become `\n`, `\t`,
    /// `\r`, `\b`, `\f` or `\u00XX` — DEL and C1 too, so that `tail -f` of the journal
    /// cannot drive a terminal — and U+2028/U+2029 become `\u2028`/`\u2029`, which some
    /// JSON-in-JavaScript readers take as line ends. Other non-ASCII text is written as
    /// UTF-8, unescaped, so names stay readable.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                case 0x00..<0x20, 0x7F:
                    unicodeEscape(UInt16(byte))
                case 0xC2 where index + 1 < utf8.count && (0x80...0x9F).contains(utf8[index + 1]):
                    unicodeEscape(UInt16(utf8[index + 1]))
                    index += 1
                case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (0xA8...0xA9).contains(utf8[index + 2]):
                    unicodeEscape(utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                    index += 2
                default:
                    bytes.append(byte)
                }
                index += 1
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func value(_ value: JournalValue) {
        switch value {
        case .string(let text):
            string(text)
        case .int(let number):
            bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            // Swift's description is the shortest text that reads back as the same
            // Double ("0.1", "1e-05", "1.0"), always a valid JSON number when finite.
            if number.isFinite {
                bytes.append(contentsOf: number.description.utf8)
            } else {
                raw("null")
            }
        case .bool(let flag):
            if flag { raw("true") } else { raw("false") }
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            object(fields, reserved: [], first: true)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The fields as `"key":value` pairs, skipping keys in `reserved` and keys already
    /// written: JSON with a repeated key means different things to different readers.
    mutating func object(_ fields: [JournalField], reserved: [String], first: Bool) {
        var first = first
        var written: [String] = []
        for field in fields {
            if reserved.contains(field.key) || written.contains(field.key) { continue }
            written.append(field.key)
            key(field.key, first: first)
            value(field.value)
            first = false
        }
    }

    private mutating func unicodeEscape(_ code: UInt16) {
        let digits: StaticString = "0123456789abcdef"
        raw("\\u")
        digits.withUTF8Buffer { hex in
            for shift in stride(from: 12, through: 0, by: -4) {
                bytes.append(hex[Int((code >> UInt16(shift)) & 0xF)])
            }
        }
    }
}
