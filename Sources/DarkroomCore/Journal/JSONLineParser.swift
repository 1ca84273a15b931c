/// Reads one JSON object from a journal line, keeping key order and number types.
///
/// Hand-written rather than `JSONSerialization`, which returns an unordered dictionary
/// (so a record would not read back equal to the one written) and numbers whose
/// integer/real/boolean nature is ambiguous on Linux. Strict RFC 8259 grammar; nesting is
/// limited to 32 levels, so a hostile line cannot exhaust the stack; any error gives
/// `nil`, never a trap.
struct JSONLineParser {
    /// A parsed JSON value. Arrays and nulls are parsed (a foreign line may have them)
    /// but have no ``JournalValue``.
    enum Value {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case object([(key: String, value: Value)])
        case array
        case null

        var journalValue: JournalValue? {
            switch self {
            case .string(let text): .string(text)
            case .int(let number): .int(number)
            case .double(let number): .double(number)
            case .bool(let flag): .bool(flag)
            case .object(let members): .object(members.compactMap { member in
                member.value.journalValue.map { JournalField(member.key, $0) }
            })
            case .array, .null: nil
            }
        }
    }

    static let maxDepth = 32

    private let text: UnsafeBufferPointer<UInt8>
    private var cursor = 0

    private init(_ text: UnsafeBufferPointer<UInt8>) {
        self.text = text
    }

    /// The members of the object that makes up the whole of `text` (white space around
    /// it allowed); `nil` for anything else.
    static func object(in text: UnsafeBufferPointer<UInt8>) -> [(key: String, value: Value)]? {
        var parser = JSONLineParser(text)
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "{"), case .object(let members)? = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.cursor == text.count ? members : nil
    }

    private var peek: UInt8? {
        cursor < text.count ? text[cursor] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            cursor += 1
        }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard cursor + count <= text.count else { return false }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { text[cursor + $0] == expected[$0] }
        }
        if matches { cursor += count }
        return matches
    }

    private mutating func value(depth: Int) -> Value? {
        guard depth < Self.maxDepth else { return nil }
        skipWhitespace()
        guard let byte = peek else { return nil }
        switch byte {
        case UInt8(ascii: "{"):
            cursor += 1
            var members: [(key: String, value: Value)] = []
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                cursor += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return nil }
                cursor += 1
                guard let element = value(depth: depth + 1) else { return nil }
                members.append((key, element))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ",")?: cursor += 1
                case UInt8(ascii: "}")?: cursor += 1; return .object(members)
                default: return nil
                }
            }
        case UInt8(ascii: "["):
            cursor += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                cursor += 1
                return .array
            }
            while true {
                guard value(depth: depth + 1) != nil else { return nil }
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ",")?: cursor += 1
                case UInt8(ascii: "]")?: cursor += 1; return .array
                default: return nil
                }
            }
        case UInt8(ascii: "\""):
            return string().map(Value.string)
        case UInt8(ascii: "t"):
            return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return consume("null") ? .null : nil
        default:
            return number()
        }
    }

    /// A string starting at the opening quote. Escapes are decoded, surrogate pairs
    /// joined; a lone surrogate becomes U+FFFD. Raw control characters are an error, as
    /// in RFC 8259; invalid UTF-8 is repaired with U+FFFD.
    private mutating func string() -> String? {
        cursor += 1
        let start = cursor
        while let byte = peek, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            cursor += 1
        }
        guard let stop = peek else { return nil }
        if stop == UInt8(ascii: "\"") {
            cursor += 1
            return String(decoding: UnsafeBufferPointer(rebasing: text[start..<cursor - 1]), as: UTF8.self)
        }

        var bytes = Array(text[start..<cursor])
        while let byte = peek {
            cursor += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return nil }
                cursor += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escaped)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    bytes.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                bytes.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `XXXX` after `\u`, joining a following `\uXXXX` low surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            let saved = cursor
            if consume("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) {
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            cursor = saved
            return "\u{FFFD}"
        }
        return Unicode.Scalar(high) ?? "\u{FFFD}"
    }

    private mutating func hex4() -> UInt32? {
        guard cursor + 4 <= text.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = text[cursor]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            cursor += 1
        }
        return value
    }

    /// A number in JSON syntax: an integer if it has no fraction or exponent and fits in
    /// `Int`, else a `Double` (correctly rounded by the standard library).
    private mutating func number() -> Value? {
        let start = cursor
        var isInteger = true
        if peek == UInt8(ascii: "-") { cursor += 1 }
        guard let first = peek, isDigit(first) else { return nil }
        cursor += 1
        if first != UInt8(ascii: "0") {
            while let byte = peek, isDigit(byte) { cursor += 1 }
        }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            cursor += 1
            guard let byte = peek, isDigit(byte) else { return nil }
            while let byte = peek, isDigit(byte) { cursor += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            cursor += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { cursor += 1 }
            guard let byte = peek, isDigit(byte) else { return nil }
            while let byte = peek, isDigit(byte) { cursor += 1 }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: text[start..<cursor]), as: UTF8.self)
        if isInteger, let integer = Int(literal) { return .int(integer) }
        return Double(literal).map(Value.double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
