import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on the loopback interface that serves fixtures and injects
/// faults (hangs, slow or endless bodies, lying lengths, redirects, gzip bombs), for tests
/// and demos of the download layer.
///
/// Each server owns one event-loop thread; every delay and trickle runs on event-loop
/// timers, so a hung connection costs nothing but a file descriptor. Routes, counters and
/// ``shutdown()`` may be used from any thread.
///
/// ```swift
/// let server = try FaultServer.start()
/// defer { server.shutdown() }
/// server.route("/cat.jpg", .bytes(jpegData))
/// server.route("/flaky", .sequence([.status(503), .bytes(jpegData)]))
/// let url = server.url("/cat.jpg")  // "http://127.0.0.1:PORT/cat.jpg"
/// ```
public final class FaultServer: Sendable {
    /// What the server does with a request for a path.
    public indirect enum Behaviour: Sendable {
        /// 200 with these bytes, a `Content-Length` and this `Content-Type`.
        case bytes(Data, contentType: String = "image/jpeg")
        /// This status (for example 404, 410, 500) with a `text/plain` body.
        case status(Int, body: String = "")
        /// The i-th request (counting from the first request for the path) gets the i-th
        /// behaviour; the last one repeats for every later request.
        case sequence([Behaviour])
        /// This status (typically 429 or 503) with `Retry-After: seconds`.
        case retryAfter(status: Int, seconds: Int)
        /// This redirect status with `Location: to`, sent verbatim (an absolute URL or a path).
        case redirect(to: String, status: Int = 302)
        /// Reads the request and never answers. The connection stays open until the client
        /// closes it or the server shuts down.
        case hangBeforeHeaders
        /// Headers with `Content-Length: declaredLength`, then `bytes`, then nothing, forever.
        case hangAfter(bytes: Data, declaredLength: Int)
        /// 200 with a correct `Content-Length`, the body sent `bytesPerChunk` at a time every
        /// `interval` seconds (the first chunk right after the headers).
        case trickle(Data, bytesPerChunk: Int, interval: Double)
        /// 200 with `Transfer-Encoding: chunked`, `chunk` repeated until the client goes away.
        /// Writes wait for the socket to drain, so a client that stops reading is not flooded.
        case endless(chunk: Data)
        /// `Content-Length: declaredLength` but exactly the bytes of `Data` are sent, then the
        /// connection is closed.
        case lyingLength(Data, declaredLength: Int)
        /// 200, `Content-Type: image/jpeg`, `Content-Encoding: gzip`, and a gzip stream (about
        /// `decompressedSize / 1030` bytes) that inflates to `decompressedSize` zero bytes. Any
        /// size works; each size is built once per server and cached.
        case gzipBomb(decompressedSize: Int)
        /// Waits `seconds` (on an event-loop timer) after the request, then behaves as the
        /// wrapped behaviour.
        case delayed(seconds: Double, Behaviour)
    }

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let state: FaultServerState
    private let host: String

    /// The TCP port the server listens on (an ephemeral one unless `start(port:)` named one).
    public let port: Int

    private init(group: MultiThreadedEventLoopGroup, serverChannel: any Channel, state: FaultServerState, host: String, port: Int) {
        self.group = group
        self.serverChannel = serverChannel
        self.state = state
        self.host = host
        self.port = port
    }

    /// Starts a server listening on `host:port`; port 0 (the default) picks a free ephemeral
    /// port, read it back from ``port``. Every path answers 404 until it is routed.
    public static func start(host: String = "127.0.0.1", port: Int = 0) throws -> FaultServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = FaultServerState()
        do {
            let channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(FaultServerHandler(state: state))
                    }
                }
                .bind(host: host, port: port)
                .wait()
            guard let boundPort = channel.localAddress?.port else {
                throw FaultServerError.noPort
            }
            return FaultServer(group: group, serverChannel: channel, state: state, host: host, port: boundPort)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    deinit {
        // Never block here: the last reference may be dropped on any thread.
        self.shutdownWithoutWaiting()
    }

    /// The absolute URL of `path` on this server, such as `http://127.0.0.1:PORT/path`.
    /// A missing leading slash is added.
    public func url(_ path: String) -> String {
        let hostPart = self.host.contains(":") ? "[\(self.host)]" : self.host
        let pathPart = path.hasPrefix("/") ? path : "/" + path
        return "http://\(hostPart):\(self.port)\(pathPart)"
    }

    /// Serves `behaviour` for `path` (matched without the query string), replacing any
    /// earlier route for it. Thread-safe; takes effect for the next request.
    public func route(_ path: String, _ behaviour: Behaviour) {
        self.state.setRoute(normalise(path), behaviour)
    }

    /// How many requests for `path` have been received (whether or not they were answered).
    public func requestCount(_ path: String) -> Int {
        self.state.requestCount(normalise(path))
    }

    /// How many responses for `path` were cut short because the client closed the
    /// connection before the server had finished (or, for a hang, ever started) answering.
    /// This is how a test sees that a cancelled or timed-out client really hung up.
    public func abortedCount(_ path: String) -> Int {
        self.state.abortedCount(normalise(path))
    }

    /// The header fields of the latest request for `path`, names lowercased (the last value
    /// wins when a field repeats); empty before the first request.
    public func lastRequestHeaders(_ path: String) -> [String: String] {
        self.state.lastHeaders(normalise(path))
    }

    /// How many client connections are open right now.
    public var openConnections: Int {
        self.state.openConnections
    }

    /// Closes the listening socket and every connection, hung ones included, and stops the
    /// event-loop thread. Idempotent. Blocks until done when called from an ordinary thread;
    /// from an event-loop thread (where blocking would deadlock) it only starts the shutdown.
    public func shutdown() {
        guard self.state.markShutDown() else { return }
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            self.serverChannel.close(promise: nil)
            self.group.shutdownGracefully { _ in }
            return
        }
        try? self.serverChannel.close().wait()
        // Shutting the group down closes every channel still registered on it.
        try? self.group.syncShutdownGracefully()
    }

    private func shutdownWithoutWaiting() {
        guard self.state.markShutDown() else { return }
        self.serverChannel.close(promise: nil)
        self.group.shutdownGracefully { _ in }
    }
}

enum FaultServerError: Error {
    case noPort
}

func normalise(_ path: String) -> String {
    var path = path
    if let query = path.firstIndex(of: "?") {
        path = String(path[..<query])
    }
    return path.hasPrefix("/") ? path : "/" + path
}

/// Everything the handlers on the event loop and the test threads share.
final class FaultServerState: Sendable {
    private struct Counters {
        var routes: [String: FaultServer.Behaviour] = [:]
        var requests: [String: Int] = [:]
        var aborted: [String: Int] = [:]
        var headers: [String: [String: String]] = [:]
        var openConnections = 0
        var shutDown = false
        var bombs: [Int: [UInt8]] = [:]
    }

    private let box = LockedBox(Counters())

    func setRoute(_ path: String, _ behaviour: FaultServer.Behaviour) {
        self.box.withLock { $0.routes[path] = behaviour }
    }

    /// Counts the request and returns what to do with it: its route resolved against the
    /// request's ordinal (for `.sequence`), or nil for an unknown path.
    func receive(_ path: String, headers: [String: String]) -> FaultServer.Behaviour? {
        self.box.withLock { counters in
            let ordinal = counters.requests[path, default: 0]
            counters.requests[path] = ordinal + 1
            counters.headers[path] = headers
            return counters.routes[path].map { resolve($0, ordinal: ordinal) }
        }
    }

    func requestCount(_ path: String) -> Int {
        self.box.withLock { $0.requests[path, default: 0] }
    }

    func lastHeaders(_ path: String) -> [String: String] {
        self.box.withLock { $0.headers[path] ?? [:] }
    }

    func recordAborted(_ path: String) {
        self.box.withLock { $0.aborted[path, default: 0] += 1 }
    }

    func abortedCount(_ path: String) -> Int {
        self.box.withLock { $0.aborted[path, default: 0] }
    }

    func connectionOpened() {
        self.box.withLock { $0.openConnections += 1 }
    }

    func connectionClosed() {
        self.box.withLock { $0.openConnections -= 1 }
    }

    var openConnections: Int {
        self.box.withLock { $0.openConnections }
    }

    /// Returns true the first time only.
    func markShutDown() -> Bool {
        self.box.withLock { counters in
            defer { counters.shutDown = true }
            return !counters.shutDown
        }
    }

    func gzipBomb(decompressedSize: Int) -> [UInt8] {
        if let cached = self.box.withLock({ $0.bombs[decompressedSize] }) {
            return cached
        }
        // Built outside the lock: about 40 ms for 100 MiB, and two racing builds are harmless.
        let bomb = GzipBomb.make(decompressedSize: decompressedSize)
        self.box.withLock { $0.bombs[decompressedSize] = bomb }
        return bomb
    }
}

private func resolve(_ behaviour: FaultServer.Behaviour, ordinal: Int) -> FaultServer.Behaviour {
    switch behaviour {
    case .sequence(let steps):
        guard let last = steps.last else {
            return .status(500, body: "empty FaultServer sequence")
        }
        return resolve(ordinal < steps.count ? steps[ordinal] : last, ordinal: ordinal)
    case .delayed(let seconds, let inner):
        return .delayed(seconds: seconds, resolve(inner, ordinal: ordinal))
    default:
        return behaviour
    }
}
