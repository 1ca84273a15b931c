import Foundation

/// Which URLs an entry may name (SPEC §1 `--allow-file-urls`, §2, §4).
///
/// Checked when a manifest is parsed, so a bad URL fails its entry before any work is
/// queued. Addresses (loopback, private, link-local) are the downloader's business: they
/// are only known after name resolution.
public enum URLPolicy {
    /// Longer URL texts (in UTF-8 bytes) are refused. 8192, the common server limit.
    public static let maxLength = 8192

    /// The URL to fetch, or the entry's problem.
    ///
    /// Nothing is trimmed: white space at either end is an `invalid-url`, since a URL
    /// that needs repair is more likely a mistake than meant. The rules, in order:
    /// - empty → `invalid-url` "no URL"; the tutorial's marker `NO URL` (any case) too;
    /// - longer than ``maxLength`` bytes, white space at either end, control characters
    ///   or a backslash anywhere → `invalid-url` (a backslash is read as `/` by browsers
    ///   and as a plain character by Foundation; refusing it avoids the two disagreeing
    ///   on the host);
    /// - not an absolute URL with a scheme → `invalid-url`;
    /// - scheme (any case) `http` or `https`: needs a non-empty host; `file`: only with
    ///   `allowFileURLs`, with an absolute path and no host but `localhost`; anything
    ///   else (`ftp`, `javascript`, `data`, …) → `scheme-not-allowed`;
    /// - user info (`user:pass@`), even empty, → `invalid-url`: credentials do not belong
    ///   in a manifest, and `http://127.0.0.1@evil/` is a trick, not a URL;
    /// - a percent-encoded host, or an explicit port outside 1…65535, → `invalid-url`;
    /// - a non-ASCII (IDN) host is accepted when Foundation can convert it (punycode).
    public static func check(_ text: String, allowFileURLs: Bool) -> Result<URL, EntryProblem> {
        if text.isEmpty { return .failure(.invalidURL("no URL")) }
        if text.utf8.count == 6, text.uppercased() == "NO URL" { return .failure(.invalidURL("the entry says \(quoted(text)) instead of a URL")) }
        let length = text.utf8.count
        if length > maxLength {
            return .failure(.invalidURL("the URL is \(length) bytes long, more than the limit of \(maxLength)"))
        }
        if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
           first.properties.isWhitespace || last.properties.isWhitespace {
            return .failure(.invalidURL("the URL starts or ends with white space"))
        }
        if text.unicodeScalars.contains(where: isControl) {
            return .failure(.invalidURL("the URL contains a control character"))
        }
        if text.contains("\\") {
            return .failure(.invalidURL("the URL contains a backslash (write it as %5C)"))
        }
        guard let components = URLComponents(string: text) else {
            return .failure(.invalidURL("\(quoted(text)) is not a valid URL"))
        }
        guard let scheme = components.scheme, !scheme.isEmpty else {
            return .failure(.invalidURL("\(quoted(text)) is a relative URL; an absolute URL such as https://host/photo.jpg is needed"))
        }

        switch scheme.lowercased() {
        case "http", "https":
            guard let host = components.percentEncodedHost, !host.isEmpty else {
                return .failure(.invalidURL("the URL has no host"))
            }
        case "file":
            guard allowFileURLs else {
                return .failure(.schemeNotAllowed("scheme 'file' is not allowed (only http and https, unless file URLs are allowed with --allow-file-urls)"))
            }
            let host = components.percentEncodedHost ?? ""
            guard host.isEmpty || host.lowercased() == "localhost" else {
                return .failure(.invalidURL("a file URL must not name a host (\(quoted(host)))"))
            }
            guard components.path.hasPrefix("/") else {
                return .failure(.invalidURL("a file URL needs an absolute path"))
            }
        default:
            return .failure(.schemeNotAllowed("scheme \(quoted(scheme)) is not allowed; only http and https"))
        }

        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            return .failure(.invalidURL("credentials in URLs are not accepted"))
        }
        if authority(of: text).contains("%") {
            return .failure(.invalidURL("the host name is percent-encoded"))
        }
        if let port = components.port, !(1...65535).contains(port) {
            return .failure(.invalidURL("port \(port) is not between 1 and 65535"))
        }
        guard let url = URL(string: text) else {
            return .failure(.invalidURL("the host \(quoted(components.host ?? "")) is not a valid host name"))
        }
        return .success(url)
    }

    /// The text between `scheme://` and the next `/`, `?` or `#`. Read from the text
    /// itself because Foundation percent-encodes IDN hosts in `percentEncodedHost`, so
    /// only the text tells a typed `%41` from a `ü`.
    private static func authority(of text: String) -> Substring {
        guard let start = text.range(of: "://")?.upperBound else { return "" }
        let rest = text[start...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return rest[..<end]
    }

    /// C0, DEL and C1: never part of a URL, and a classic way to smuggle a header line.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
