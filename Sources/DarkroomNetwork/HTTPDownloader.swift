import AsyncHTTPClient
import DarkroomCore
import Foundation
import NIOCore

/// Downloads `http` and `https` URLs with AsyncHTTPClient (one shared `HTTPClient` and
/// connection pool for every download).
///
/// See ``Downloader`` for the contract every download follows. Errors map as follows:
///
/// | what happened | thrown |
/// |---|---|
/// | status ≥ 400, or a 3xx that is not a usable redirect | ``DownloadFailure/http(status:reason:retryAfter:)`` (`Retry-After` in seconds, numeric or HTTP-date) |
/// | no connection within `connectTimeout` | ``DownloadFailure/timeout(_:)`` |
/// | no byte received for `readTimeout`, before or during the body | ``DownloadFailure/timeout(_:)`` |
/// | refused, reset, closed early, DNS failure, TLS failure | ``DownloadFailure/connection(_:)`` with the system's reason |
/// | body shorter than its `Content-Length` | ``DownloadFailure/connection(_:)`` "connection closed after N of M bytes" |
/// | `Content-Length` or the bytes counted above `maxBytes` | ``DownloadFailure/tooLarge(limit:)`` (a too-large declared length fails before any body is read) |
/// | the host, or a redirect's, has a refused address (see ``AddressPolicy``) | ``DownloadFailure/addressNotAllowed(_:)``, before connecting |
/// | the host name cannot be resolved | ``DownloadFailure/connection(_:)`` "cannot resolve host name …" |
/// | redirect to a scheme other than http/https (`ftp:`, `file:`, …) | ``DownloadFailure/schemeNotAllowed(_:)`` |
/// | more than `maxRedirects` redirects, or a redirect loop | ``DownloadFailure/invalidURL(_:)``: the URL does not lead to a resource, and fetching it again will not change that |
/// | a URL or `Location` that cannot be parsed | ``DownloadFailure/invalidURL(_:)`` |
/// | the destination cannot be written | ``DownloadWriteError`` |
/// | the task is cancelled | `CancellationError` |
///
/// The body is stored exactly as sent: no `Accept-Encoding` is offered and nothing is
/// decompressed, so a gzip body is stored compressed (and later refused as not an image)
/// instead of being inflated into a decompression bomb.
///
/// Thread safety: one instance is shared by every download task; call ``shutdown()`` once,
/// after the last download has finished.
public final class HTTPDownloader: Downloader {
    /// Limits of every download. The defaults are those of `darkroom run`.
    public struct Configuration: Sendable {
        /// Seconds allowed to open a connection (TCP, and TLS for https); also how long a
        /// download may wait for a free pooled connection. Default 10 (`--connect-timeout`).
        public var connectTimeout: Double
        /// Seconds without receiving a single byte, while waiting for the response headers or
        /// during the body, after which the download fails. A slow body that keeps arriving
        /// is never cut off. Default 30 (`--timeout`).
        public var readTimeout: Double
        /// Redirects followed before giving up. Default 5.
        public var maxRedirects: Int
        /// The `User-Agent` header. Default `darkroom/0.1`.
        public var userAgent: String
        /// Connections opened to one host at most. Keep it at or above the download
        /// concurrency: requests beyond it queue for a free connection, and one that waits
        /// longer than `connectTimeout` fails with a timeout. Default 64.
        public var maxConnectionsPerHost: Int
        /// Which addresses may be connected to, checked for the URL and every redirect.
        /// Default: link-local refused, everything else allowed (`--deny-private-networks` off).
        public var addressPolicy: AddressPolicy

        public init(
            connectTimeout: Double = 10,
            readTimeout: Double = 30,
            maxRedirects: Int = 5,
            userAgent: String = "darkroom/0.1",
            maxConnectionsPerHost: Int = 64,
            addressPolicy: AddressPolicy = AddressPolicy()
        ) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.maxRedirects = maxRedirects
            self.userAgent = userAgent
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.addressPolicy = addressPolicy
        }
    }

    public let configuration: Configuration
    private let client: HTTPClient

    /// Creates the shared client on AsyncHTTPClient's default (singleton) event-loop group.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var settings = HTTPClient.Configuration()
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: timeAmount(configuration.connectTimeout),
            read: timeAmount(configuration.readTimeout)
        )
        // Redirects are followed here rather than by the client: it would silently hand back
        // a redirect to ftp:// or file:// as a plain 3xx response, and its limit errors do not
        // say where the chain went.
        settings.redirectConfiguration = .disallow
        settings.decompression = .disabled
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maxConnectionsPerHost)
        // With retries on, a refused connection is retried with back-off until the connect
        // timeout and then reported as a timeout; one attempt means one attempt, and the
        // caller's RetryPolicy decides about the next.
        pool.retryConnectionEstablishment = false
        settings.connectionPool = pool
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
    }

    deinit {
        // AsyncHTTPClient traps in debug builds when a client is released without being shut
        // down; start the shutdown here so that forgetting `shutdown()` only leaks briefly.
        _ = self.client.shutdown()
    }

    /// Closes every pooled connection, aborting downloads still running. Call it after the
    /// last download has finished; downloads started afterwards fail. Idempotent.
    public func shutdown() async throws {
        do {
            try await self.client.shutdown()
        } catch let error as HTTPClientError where error == .alreadyShutdown {
            return
        }
    }

    public func download(_ request: DownloadRequest) async throws -> DownloadResponse {
        try Task.checkCancellation()
        var url = request.url
        try checkScheme(of: url, redirectedFrom: nil)
        var visited: Set<String> = [url.absoluteString]
        var redirects = 0

        while true {
            try await self.configuration.addressPolicy.check(host: url.host ?? "")
            let response = try await self.fetchHead(url)
            let status = Int(response.status.code)

            if isRedirect(status), let location = response.headers.first(name: "Location") {
                // The redirect's own body is dropped unread: AsyncHTTPClient then closes that
                // connection, which is cheaper than risking a wait on a body that never ends.
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL, next.host != nil || next.scheme != nil else {
                    throw DownloadFailure.invalidURL("redirect from \(url.absoluteString) to an invalid Location: \(location)")
                }
                try checkScheme(of: next, redirectedFrom: url)
                redirects += 1
                guard redirects <= self.configuration.maxRedirects else {
                    throw DownloadFailure.invalidURL(
                        "too many redirects (more than \(self.configuration.maxRedirects)), the last to \(next.absoluteString)"
                    )
                }
                guard visited.insert(next.absoluteString).inserted else {
                    throw DownloadFailure.invalidURL("redirect loop: \(url.absoluteString) leads back to \(next.absoluteString)")
                }
                url = next
                continue
            }

            guard (200..<300).contains(status) else {
                // The standard phrase where there is one: servers' own phrases vary ("OK",
                // "Not found", nothing at all over HTTP/2) and the journal should not.
                let standard = DownloadFailure.reasonPhrase(for: status)
                throw DownloadFailure.http(
                    status: status,
                    reason: standard.isEmpty ? response.status.reasonPhrase : standard,
                    retryAfter: response.headers.first(name: "Retry-After").flatMap(parseRetryAfter)
                )
            }
            return try await self.receiveBody(of: response, from: url, into: request)
        }
    }

    /// Sends the request and waits for the response head.
    ///
    /// AsyncHTTPClient's deadline only covers the time until the head has arrived (the body
    /// is bounded by the read timeout alone). The deadline set here, connect + 2 × read,
    /// only catches a server that dribbles its headers a byte at a time; a server that sends
    /// nothing trips the read timeout first.
    private func fetchHead(_ url: URL) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: self.configuration.userAgent)
        request.headers.add(name: "Accept", value: "image/*, */*;q=0.5")
        let deadline = NIODeadline.now() + timeAmount(self.configuration.connectTimeout + 2 * self.configuration.readTimeout)
        do {
            return try await self.client.execute(request, deadline: deadline)
        } catch {
            throw self.translate(error, url: url, bodyProgress: nil)
        }
    }

    private func receiveBody(of response: HTTPClientResponse, from url: URL, into request: DownloadRequest) async throws -> DownloadResponse {
        let declared = response.headers.first(name: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let declared, declared > request.maxBytes {
            // Dropping the response unread makes AsyncHTTPClient close the connection: the
            // oversized body is neither written nor waited for.
            throw DownloadFailure.tooLarge(limit: request.maxBytes)
        }

        let sink = try FileSink(path: request.destination)
        defer { sink.close() }
        var received = 0
        do {
            for try await buffer in response.body {
                received += buffer.readableBytes
                if received > request.maxBytes {
                    // The excess is never written: the file holds at most maxBytes bytes.
                    throw DownloadFailure.tooLarge(limit: request.maxBytes)
                }
                try sink.write(buffer)
            }
        } catch let error as DownloadFailure {
            throw error
        } catch let error as DownloadWriteError {
            throw error
        } catch {
            throw self.translate(error, url: url, bodyProgress: (received, declared))
        }
        // Defensive: were the body sequence ever to end quietly on cancellation, a partial
        // file must not pass for a complete download.
        try Task.checkCancellation()
        if let declared, received != declared {
            throw DownloadFailure.connection("connection closed after \(received) of \(declared) bytes from \(hostDescription(url))")
        }
        try sink.finish()
        return DownloadResponse(bytes: received, contentType: response.headers.first(name: "Content-Type"), finalURL: url)
    }

    /// Maps what AsyncHTTPClient and NIO throw to the journal's vocabulary.
    private func translate(_ error: any Error, url: URL, bodyProgress: (received: Int, declared: Int?)?) -> any Error {
        if error is CancellationError || Task.isCancelled {
            return CancellationError()
        }
        if error is DownloadFailure || error is DownloadWriteError {
            return error
        }
        let host = hostDescription(url)
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .readTimeout:
                return DownloadFailure.timeout("no byte received from \(host) for \(formatSeconds(self.configuration.readTimeout)) s")
            case .connectTimeout:
                return DownloadFailure.timeout("could not connect to \(host) within \(formatSeconds(self.configuration.connectTimeout)) s")
            case .getConnectionFromPoolTimeout:
                return DownloadFailure.timeout(
                    "no connection to \(host) became free within \(formatSeconds(self.configuration.connectTimeout)) s"
                )
            case .deadlineExceeded:
                let limit = self.configuration.connectTimeout + 2 * self.configuration.readTimeout
                return DownloadFailure.timeout("no complete response headers from \(host) within \(formatSeconds(limit)) s")
            case .remoteConnectionClosed:
                if let progress = bodyProgress {
                    return DownloadFailure.connection(closedEarly(host: host, progress: progress))
                }
                return DownloadFailure.connection("\(host) closed the connection before answering")
            case .cancelled:
                return CancellationError()
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
                return DownloadFailure.invalidURL("\(url.absoluteString): \(clientError)")
            default:
                return DownloadFailure.connection("\(host): \(clientError)")
            }
        }
        if let progress = bodyProgress, isEarlyEOF(error) {
            return DownloadFailure.connection(closedEarly(host: host, progress: progress))
        }
        if isParserError(error) {
            return DownloadFailure.connection("invalid HTTP response from \(host): \(error)")
        }
        return DownloadFailure.connection(describeConnectionError(error, host: host))
    }
}

private func closedEarly(host: String, progress: (received: Int, declared: Int?)) -> String {
    if let declared = progress.declared {
        return "connection closed after \(progress.received) of \(declared) bytes from \(host)"
    }
    return "connection closed by \(host) after \(progress.received) bytes, before the end of the body"
}

/// NIO's HTTP decoder reports a body cut short by EOF as `HTTPParserError.invalidEOFState`
/// (and AsyncHTTPClient passes it on as is, not as `remoteConnectionClosed`). Matched by
/// name and description because NIOHTTP1 is not a declared dependency of this module.
private func isEarlyEOF(_ error: any Error) -> Bool {
    guard String(reflecting: type(of: error)) == "NIOHTTP1.HTTPParserError" else { return false }
    let description = "\(error)"
    return description.contains("invalidEOFState") || description == "stream ended at an unexpected time"
}

/// Any other parser error: the server sent something that is not HTTP (bad chunk framing,
/// a malformed header line).
private func isParserError(_ error: any Error) -> Bool {
    String(reflecting: type(of: error)) == "NIOHTTP1.HTTPParserError"
}

/// A sentence with the system's own reason (`Connection refused`, a DNS failure, …).
///
/// NIOPosix is not a dependency of this module, so its `NIOConnectionError` (a wrapper with
/// one error per address tried and the DNS errors) is searched by reflection for the NIOCore
/// errors inside it, which say what really went wrong.
private func describeConnectionError(_ error: any Error, host: String) -> String {
    if String(reflecting: type(of: error)).hasPrefix("NIOSSL.") {
        return "TLS with \(host) failed: \(describeTLSError(error))"
    }
    var reasons: [String] = []
    collectReasons(error, into: &reasons, depth: 0)
    var unique: [String] = []
    for reason in reasons where !unique.contains(reason) {
        unique.append(reason)
    }
    if unique.isEmpty {
        return "cannot connect to \(host): \(error)"
    }
    return "cannot connect to \(host): \(unique.joined(separator: "; "))"
}

/// BoringSSL's reasons (`CERTIFICATE_VERIFY_FAILED`, `WRONG_VERSION_NUMBER`) out of
/// NIOSSL's long descriptions, which also carry source paths; the whole text otherwise.
private func describeTLSError(_ error: any Error) -> String {
    let text = "\(error)"
    var reasons: [String] = []
    var rest = Substring(text)
    while let marker = rest.range(of: "error:") {
        // error:HEX:LIBRARY:FUNCTION:REASON
        let fields = rest[marker.upperBound...].split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
        if fields.count >= 4 {
            let reason = fields[3].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if !reason.isEmpty, !reasons.contains(String(reason)) {
                reasons.append(String(reason))
            }
        }
        rest = rest[marker.upperBound...]
    }
    if reasons.isEmpty {
        return text
    }
    return reasons.joined(separator: ", ")
}

private func collectReasons(_ value: Any, into reasons: inout [String], depth: Int) {
    guard depth < 6 else { return }
    if let ioError = value as? IOError {
        reasons.append(String(cString: strerror(ioError.errnoCode)))
        return
    }
    if let addressError = value as? SocketAddressError {
        switch addressError {
        case .unknown(let host, _):
            reasons.append("cannot resolve host name \(host)")
        default:
            reasons.append("\(addressError)")
        }
        return
    }
    if let channelError = value as? ChannelError {
        switch channelError {
        case .connectTimeout:
            reasons.append("connect timed out")
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            reasons.append("connection closed")
        default:
            reasons.append("\(channelError)")
        }
        return
    }
    let mirror = Mirror(reflecting: value)
    let before = reasons.count
    for child in mirror.children {
        collectReasons(child.value, into: &reasons, depth: depth + 1)
    }
    if reasons.count == before, depth == 0 {
        reasons.append("\(value)")
    }
}

private func checkScheme(of url: URL, redirectedFrom origin: URL?) throws {
    let scheme = url.scheme?.lowercased()
    if scheme == "http" || scheme == "https" {
        guard let host = url.host, !host.isEmpty else {
            throw DownloadFailure.invalidURL("\(url.absoluteString) has no host")
        }
        return
    }
    if let origin {
        throw DownloadFailure.schemeNotAllowed(
            "\(origin.absoluteString) redirects to \(url.absoluteString); only http and https redirects are followed"
        )
    }
    guard let scheme, !scheme.isEmpty else {
        throw DownloadFailure.invalidURL("\(url.absoluteString) has no scheme")
    }
    throw DownloadFailure.schemeNotAllowed("\(scheme): URLs are not downloaded over HTTP")
}

private func isRedirect(_ status: Int) -> Bool {
    [301, 302, 303, 307, 308].contains(status)
}

/// `Retry-After` is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
func parseRetryAfter(_ value: String) -> Double? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(trimmed) {
        return seconds >= 0 ? Double(seconds) : nil
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: trimmed) else { return nil }
    return max(0, date.timeIntervalSinceNow)
}

private func hostDescription(_ url: URL) -> String {
    guard var host = url.host else { return url.absoluteString }
    if host.contains(":"), !host.hasPrefix("[") {
        host = "[\(host)]"
    }
    if let port = url.port {
        return "\(host):\(port)"
    }
    return host
}

func formatSeconds(_ seconds: Double) -> String {
    if seconds == seconds.rounded(), abs(seconds) < 1e15 {
        return String(Int(seconds))
    }
    return String(format: "%g", seconds)
}

private func timeAmount(_ seconds: Double) -> TimeAmount {
    .nanoseconds(Int64(max(0, min(seconds, 1e9)) * 1_000_000_000))
}
