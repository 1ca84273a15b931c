/// A configuration file in the subset of TOML a flat list of options needs:
/// `key = value` lines, `#` comments, blank lines; values are strings (`"…"` with TOML
/// escapes, or `'…'` literal), integers (`_` separators allowed), floats and booleans.
/// Tables, arrays and dates are refused with a clear message, as are unknown keys and
/// keys given twice, each error naming the file, the line and the key.
///
/// Parsing is pure: the caller reads the file. Hand-written rather than a TOML library so
/// that every error points at its line.
public struct ConfigFile: Sendable, Equatable {
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case string(String)
        case integer(Int)
        case float(Double)
        case bool(Bool)

        public var description: String {
            switch self {
            case .string(let text): "\"\(text)\""
            case .integer(let number): "\(number)"
            case .float(let number): "\(number)"
            case .bool(let flag): "\(flag)"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: Value
        public var line: Int
    }

    public let path: String
    /// Entries by key.
    public private(set) var entries: [String: Entry] = [:]

    public subscript(key: String) -> Entry? { entries[key] }

    /// Parses `text`; `keys` are the keys allowed.
    public init(text: String, path: String, keys: Set<String>) throws(ConfigError) {
        self.path = path
        // "\r\n" is one Character in Swift: split on both kinds of line end.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            var scanner = Scanner(Array(rawLine.unicodeScalars), path: path, line: number)
            scanner.skipBlanks()
            if scanner.atEndOrComment { continue }
            if scanner.peek == "[" {
                throw ConfigError(path: path, line: number, key: nil, message: "tables are not used: write every option at the top level")
            }
            let key = try scanner.key()
            guard keys.contains(key) else {
                throw ConfigError(path: path, line: number, key: key, message: "unknown option (known: \(keys.sorted().joined(separator: ", ")))")
            }
            if let earlier = entries[key] {
                throw ConfigError(path: path, line: number, key: key, message: "given twice (first on line \(earlier.line))")
            }
            scanner.skipBlanks()
            guard scanner.take("=") else {
                throw ConfigError(path: path, line: number, key: key, message: "expected '=' after the key")
            }
            scanner.skipBlanks()
            let value: Value
            do { value = try scanner.value() } catch { throw error.with(key: key) }
            scanner.skipBlanks()
            guard scanner.atEndOrComment else {
                throw ConfigError(path: path, line: number, key: key, message: "unexpected text after the value")
            }
            entries[key] = Entry(key: key, value: value, line: number)
        }
    }

    /// The value of `key` as a type, or an error naming the line; nil when absent.
    public func string(_ key: String) throws(ConfigError) -> String? {
        guard let entry = entries[key] else { return nil }
        guard case .string(let text) = entry.value else { throw mismatch(entry, "a string") }
        return text
    }

    public func integer(_ key: String) throws(ConfigError) -> Int? {
        guard let entry = entries[key] else { return nil }
        guard case .integer(let number) = entry.value else { throw mismatch(entry, "an integer") }
        return number
    }

    /// A number; integers are accepted where a float is expected.
    public func number(_ key: String) throws(ConfigError) -> Double? {
        guard let entry = entries[key] else { return nil }
        switch entry.value {
        case .integer(let number): return Double(number)
        case .float(let number): return number
        default: throw mismatch(entry, "a number")
        }
    }

    public func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let entry = entries[key] else { return nil }
        guard case .bool(let flag) = entry.value else { throw mismatch(entry, "true or false") }
        return flag
    }

    /// An error about `key`'s value, for checks the caller makes (ranges, enumerations).
    public func invalid(_ key: String, _ message: String) -> ConfigError {
        ConfigError(path: path, line: entries[key]?.line ?? 0, key: key, message: message)
    }

    private func mismatch(_ entry: Entry, _ expected: String) -> ConfigError {
        ConfigError(path: path, line: entry.line, key: entry.key, message: "expected \(expected), found \(entry.value)")
    }
}

/// A configuration problem: `FILE:LINE: key 'KEY': message`.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var key: String?
    public var message: String

    public init(path: String, line: Int, key: String?, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        "\(path):\(line): " + (key.map { "key '\($0)': " } ?? "") + message
    }

    func with(key: String) -> ConfigError {
        var copy = self
        copy.key = key
        return copy
    }
}

/// Reads one line of the subset.
private struct Scanner {
    let scalars: [Unicode.Scalar]
    let path: String
    let line: Int
    var index = 0

    init(_ scalars: [Unicode.Scalar], path: String, line: Int) {
        self.scalars = scalars.last == "\r" ? Array(scalars.dropLast()) : scalars
        self.path = path
        self.line = line
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    var atEndOrComment: Bool { peek == nil || peek == "#" }

    mutating func skipBlanks() {
        while peek == " " || peek == "\t" { index += 1 }
    }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        index += 1
        return true
    }

    func error(_ message: String) -> ConfigError {
        ConfigError(path: path, line: line, key: nil, message: message)
    }

    mutating func key() throws(ConfigError) -> String {
        if peek == "\"" {
            guard case .string(let text) = try value() else { throw error("bad key") }
            return text
        }
        var key = ""
        while let scalar = peek, ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
        {
            key.unicodeScalars.append(scalar)
            index += 1
        }
        guard !key.isEmpty else { throw error("expected 'key = value'") }
        if peek == "." { throw error("dotted keys are not used: write every option at the top level") }
        return key
    }

    mutating func value() throws(ConfigError) -> ConfigFile.Value {
        switch peek {
        case "\"": return .string(try basicString())
        case "'": return .string(try literalString())
        case "[", "{": throw error("arrays and inline tables are not used by any option")
        case nil, "#": throw error("missing value")
        default: return try bare()
        }
    }

    private mutating func basicString() throws(ConfigError) -> String {
        index += 1
        var text = ""
        while let scalar = peek {
            index += 1
            switch scalar {
            case "\"": return text
            case "\\":
                guard let escaped = peek else { throw error("unterminated string") }
                index += 1
                switch escaped {
                case "\"": text += "\""
                case "\\": text += "\\"
                case "n": text += "\n"
                case "t": text += "\t"
                case "r": text += "\r"
                case "b": text += "\u{8}"
                case "f": text += "\u{C}"
                case "u", "U":
                    let count = escaped == "u" ? 4 : 8
                    guard index + count <= scalars.count,
                        let code = UInt32(String(String.UnicodeScalarView(scalars[index..<index + count])), radix: 16),
                        let decoded = Unicode.Scalar(code)
                    else { throw error("bad \\\(escaped) escape") }
                    text.unicodeScalars.append(decoded)
                    index += count
                default: throw error("unknown escape \\\(escaped)")
                }
            default:
                if scalar.value < 0x20 && scalar != "\t" { throw error("control character in a string") }
                text.unicodeScalars.append(scalar)
            }
        }
        throw error("unterminated string")
    }

    private mutating func literalString() throws(ConfigError) -> String {
        index += 1
        var text = ""
        while let scalar = peek {
            index += 1
            if scalar == "'" { return text }
            text.unicodeScalars.append(scalar)
        }
        throw error("unterminated string")
    }

    private mutating func bare() throws(ConfigError) -> ConfigFile.Value {
        var word = ""
        while let scalar = peek, scalar != " ", scalar != "\t", scalar != "#" {
            word.unicodeScalars.append(scalar)
            index += 1
        }
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: break
        }
        let digits = word.replacingUnderscores()
        if let number = Int(digits) { return .integer(number) }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let number = Double(digits), number.isFinite {
            return .float(number)
        }
        throw error("'\(word)' is not a value: strings need quotes, as in \"\(word)\"")
    }
}

private extension String {
    /// TOML allows `_` between digits: 67_108_864.
    func replacingUnderscores() -> String {
        String(filter { $0 != "_" })
    }
}
