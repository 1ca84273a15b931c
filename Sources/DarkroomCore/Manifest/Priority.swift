import Foundation

/// The priority of a manifest or of one of its entries (SPEC §2).
///
/// The names are those of `Operation.QueuePriority`, so a manifest reads like the code
/// that runs it. Ordered by rank: `veryLow < low < normal < high < veryHigh`.
/// The default, when a manifest says nothing, is ``normal``.
public enum Priority: String, Sendable, CaseIterable, Comparable, Codable {
    case veryLow
    case low
    case normal
    case high
    case veryHigh

    /// The priority of a manifest or entry that does not name one: ``normal``.
    public static let `default` = Priority.normal

    /// The accepted names, in rank order, as written in error messages.
    public static let namesList = allCases.map(\.rawValue).joined(separator: ", ")

    /// 0 for ``veryLow`` up to 4 for ``veryHigh``.
    public var rank: Int {
        switch self {
        case .veryLow: 0
        case .low: 1
        case .normal: 2
        case .high: 3
        case .veryHigh: 4
        }
    }

    /// The priority called `name`, ignoring case (`"VeryHigh"` and `"veryhigh"` both work,
    /// since nothing is gained by failing a manifest over a capital letter); `nil` otherwise.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Priority.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }

    /// The matching `Operation.QueuePriority`, for the daemon's queues.
    public var queuePriority: Operation.QueuePriority {
        switch self {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }

    public static func < (lhs: Priority, rhs: Priority) -> Bool {
        lhs.rank < rhs.rank
    }
}
