/// Why getting an entry's image bytes failed, with the stable codes of SPEC §4.
public enum DownloadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status other than 2xx. `retryAfter` is its
    /// `Retry-After` in seconds, when it sent one.
    case http(status: Int, reason: String, retryAfter: Double?)
    /// Connecting, or waiting for the next byte, took too long.
    case timeout(String)
    /// The connection could not be made or broke (refused, reset, DNS, TLS).
    case connection(String)
    /// The body was larger than `--max-download-bytes`.
    case tooLarge(limit: Int)
    /// The host resolved to an address that is refused (link-local, or private with
    /// `--deny-private-networks`).
    case addressNotAllowed(String)
    /// A redirect, or the entry, named a scheme that is not allowed.
    case schemeNotAllowed(String)
    /// A redirect, or the entry, named something that is not a usable URL.
    case invalidURL(String)
    /// A bug or an impossible state; never expected.
    case `internal`(String)

    /// The stable code journaled before the colon: `http-404`, `timeout`, `too-large`, ….
    public var code: String {
        switch self {
        case .http(let status, _, _): "http-\(status)"
        case .timeout: "timeout"
        case .connection: "connection"
        case .tooLarge: "too-large"
        case .addressNotAllowed: "address-not-allowed"
        case .schemeNotAllowed: "scheme-not-allowed"
        case .invalidURL: "invalid-url"
        case .internal: "internal"
        }
    }

    /// The human sentence: `server answered 404 Not Found`, `more than 67108864 bytes`.
    public var message: String {
        switch self {
        case .http(let status, let reason, _):
            reason.isEmpty ? "server answered \(status)" : "server answered \(status) \(reason)"
        case .tooLarge(let limit):
            "more than \(limit) bytes"
        case .timeout(let message), .connection(let message), .addressNotAllowed(let message),
             .schemeNotAllowed(let message), .invalidURL(let message), .internal(let message):
            message
        }
    }

    /// `"code: message"`, the `error` of `entry.failed`.
    public var description: String { "\(code): \(message)" }

    /// Worth another attempt: connection failures, timeouts, HTTP 5xx, 429 and 408 —
    /// the answers that can differ a moment later. Never any other 4xx: asking again
    /// for a missing photo only annoys the server.
    public var isTransient: Bool {
        switch self {
        case .connection, .timeout:
            true
        case .http(let status, _, _):
            (500...599).contains(status) || status == 429 || status == 408
        case .tooLarge, .addressNotAllowed, .schemeNotAllowed, .invalidURL, .internal:
            false
        }
    }

    /// The server's `Retry-After` in seconds, for HTTP failures that carried one.
    public var retryAfter: Double? {
        if case .http(_, _, let retryAfter) = self { return retryAfter }
        return nil
    }

    /// An HTTP failure with the standard reason phrase of `status` (`"Not Found"` for
    /// 404), for servers whose own reason phrase is missing (HTTP/2 has none).
    public static func httpStatus(_ status: Int, retryAfter: Double? = nil) -> DownloadFailure {
        .http(status: status, reason: reasonPhrase(for: status), retryAfter: retryAfter)
    }

    /// The RFC 9110 reason phrase of `status`; `""` for codes it does not name.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        default: ""
        }
    }
}
