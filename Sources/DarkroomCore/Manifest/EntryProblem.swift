/// Why one entry of a manifest cannot be processed. The entry fails on its own; the rest
/// of the manifest goes on (SPEC §2).
///
/// Codes: `invalid-url` and `scheme-not-allowed` (SPEC §4), and `invalid-entry` for an
/// entry that is malformed apart from its URL: an empty name, an array element that is
/// not a dictionary, a bad per-entry option, or a name already used earlier in an array
/// manifest.
public struct EntryProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short stable code, e.g. `invalid-url`.
    public var code: String
    /// A human sentence, e.g. `no URL`.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `"code: message"`, the form journaled as `error` of `entry.failed`.
    public var description: String { "\(code): \(message)" }

    public static func invalidURL(_ message: String) -> EntryProblem {
        EntryProblem(code: "invalid-url", message: message)
    }

    public static func schemeNotAllowed(_ message: String) -> EntryProblem {
        EntryProblem(code: "scheme-not-allowed", message: message)
    }

    public static func invalidEntry(_ message: String) -> EntryProblem {
        EntryProblem(code: "invalid-entry", message: message)
    }
}
