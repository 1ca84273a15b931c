/// The value of a journal field: what a JSON line of the journal can hold.
///
/// There is no array and no null: the daemon writes neither, and a line written by
/// something else that has them keeps its other fields (see
/// ``JournalRecord/init(line:)``).
public indirect enum JournalValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    /// Written so that it reads back as the same `Double`; a NaN or an infinity is
    /// written as JSON `null` (JSON has no such numbers) and so does not read back.
    case double(Double)
    case bool(Bool)
    /// A nested object, keys in order, e.g. the `counts` of `manifest.finished`.
    case object([JournalField])

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number, for `.double` and also `.int`.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var objectValue: [JournalField]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// The first field called `key` of an object; `nil` for other values.
    public subscript(key: String) -> JournalValue? {
        objectValue?.first { $0.key == key }?.value
    }
}

extension JournalValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JournalValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension JournalValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JournalValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// One key and value of a journal line, in the order they are written.
public struct JournalField: Sendable, Equatable {
    public var key: String
    public var value: JournalValue

    public init(_ key: String, _ value: JournalValue) {
        self.key = key
        self.value = value
    }
}
