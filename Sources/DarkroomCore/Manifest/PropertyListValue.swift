import Foundation

/// A value from `PropertyListSerialization`, with its plist type made explicit.
///
/// Foundation hands back `Any`, and its numbers are slippery: on Linux a plist `<true/>`
/// is a Swift `Bool` while `<integer>1</integer>` is an `NSNumber` that also casts to
/// `Bool`; on Darwin both are `NSNumber`s. Asking `as? Bool` or `as? Int` would accept
/// `<true/>` as a quality of 1, so the type is decided once, here, from what the value is.
enum PropertyListValue {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date
    case data
    case array([Any])
    case dictionary(PropertyListDictionary)
    /// An integer beyond `Int`, or a value of a type property lists do not have.
    case other(String)

    init(_ value: Any) {
        // Containers first: a failed `as? NSNumber` on a Swift collection bridges the
        // whole collection to Foundation first, which for a 200,000-entry manifest cost
        // a second.
        if let dictionary = value as? [AnyHashable: Any] {
            self = .dictionary(PropertyListDictionary(dictionary))
        } else if let array = value as? [Any] {
            self = .array(array)
        } else if let text = value as? String {
            self = .string(text)
        } else if type(of: value) == Bool.self, let flag = value as? Bool {
            self = .boolean(flag)
        } else if type(of: value) == Int.self, let number = value as? Int {
            self = .integer(number)
        } else if type(of: value) == Double.self, let number = value as? Double {
            self = .real(number)
        } else if value is Date {
            self = .date
        } else if value is Data {
            self = .data
        } else if let number = value as? NSNumber {
            self = Self.classify(number)
        } else {
            self = .other("a \(type(of: value))")
        }
    }

    private static func classify(_ number: NSNumber) -> PropertyListValue {
        switch String(cString: number.objCType) {
        case "c", "B":
            // Property lists never hold 8-bit integers, so "c" is a boolean (CFBoolean).
            return .boolean(number.boolValue)
        case "d", "f":
            return .real(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            let value = number.uint64Value
            return value <= UInt64(Int.max) ? .integer(Int(value)) : .other("an integer too large (\(value))")
        default:
            return .integer(number.intValue)
        }
    }

    /// "a string", "an integer", …: the type as a user would name it in a sentence.
    var typeDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "a data value"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .other(let description): description
        }
    }

    /// The type and, for short scalars, the value: `an integer (3)`.
    var typeAndValue: String {
        switch self {
        case .string(let text): "a string (\(quoted(text)))"
        case .integer(let value): "an integer (\(value))"
        case .real(let value): "a real number (\(value))"
        case .boolean(let value): "a boolean (\(value))"
        default: typeDescription
        }
    }
}

/// A plist dictionary as Foundation returns it, looked up by string keys.
///
/// Kept as `[AnyHashable: Any]` because converting it to `[String: Any]` rehashes every
/// key: for a 200,000-entry manifest that conversion alone took a third of the parse.
struct PropertyListDictionary {
    private let storage: [AnyHashable: Any]

    init(_ storage: [AnyHashable: Any]) {
        self.storage = storage
    }

    init(_ strings: [String: Any]) {
        var storage: [AnyHashable: Any] = [:]
        for (key, value) in strings { storage[AnyHashable(key)] = value }
        self.storage = storage
    }

    subscript(key: String) -> Any? {
        storage[AnyHashable(key)]
    }

    var count: Int { storage.count }

    /// The keys, sorted; `nil` if one is not a string (binary plists can hold such keys).
    func sortedStringKeys() -> [String]? {
        var keys: [String] = []
        keys.reserveCapacity(storage.count)
        for key in storage.keys {
            guard let text = key.base as? String else { return nil }
            keys.append(text)
        }
        return keys.sorted()
    }
}

/// `text` in single quotes, cut to 60 characters: messages quote user input, and a
/// megabyte-long value should not make a megabyte-long journal line.
func quoted(_ text: String) -> String {
    let limit = 60
    if text.count <= limit { return "'\(text)'" }
    return "'\(text.prefix(limit))…'"
}
