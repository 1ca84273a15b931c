import Foundation
import NIOCore
import NIOHTTP1

/// One per connection; lives on the connection's event loop only.
///
/// Every timer and write-completion callback checks `isCurrent(response)` first: once the
/// client has gone (or a later response has started) a stale trickle or pump simply stops,
/// which is what keeps client disconnects mid-stream harmless.
final class FaultServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: FaultServerState
    private var isActive = false
    /// The path of the request being answered, from its head until its response is complete.
    private var inFlightPath: String?
    private var keepAlive = true
    private var pending: FaultServer.Behaviour??
    /// Identifies the response in progress, so callbacks of an earlier one can tell they are stale.
    private var responseID = 0

    init(state: FaultServerState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        self.isActive = true
        self.state.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.isActive {
            self.isActive = false
            self.state.connectionClosed()
            if let path = self.inFlightPath {
                self.state.recordAborted(path)
                self.inFlightPath = nil
            }
        }
        self.responseID += 1
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            let path = normalise(head.uri)
            self.inFlightPath = path
            self.keepAlive = head.isKeepAlive
            var fields: [String: String] = [:]
            for (name, value) in head.headers {
                fields[name.lowercased()] = value
            }
            self.pending = .some(self.state.receive(path, headers: fields))
        case .body:
            break
        case .end:
            guard let behaviour = self.pending else { return }
            self.pending = nil
            self.responseID += 1
            if let behaviour {
                self.perform(behaviour, context: context, response: self.responseID)
            } else {
                self.respond(context: context, status: 404, headers: ["Content-Type": "text/plain"], body: Data("not found\n".utf8))
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // Typically ECONNRESET or EPIPE from a client that hung up mid-body: not our problem.
        context.close(promise: nil)
    }

    private func isCurrent(_ response: Int) -> Bool {
        self.isActive && self.responseID == response
    }

    private func perform(_ behaviour: FaultServer.Behaviour, context: ChannelHandlerContext, response: Int) {
        guard self.isCurrent(response) else { return }
        switch behaviour {
        case .bytes(let data, let contentType):
            self.respond(context: context, status: 200, headers: ["Content-Type": contentType], body: data)

        case .status(let code, let body):
            self.respond(context: context, status: code, headers: ["Content-Type": "text/plain"], body: Data(body.utf8))

        case .sequence:
            // Resolved by FaultServerState.receive against the request's ordinal.
            preconditionFailure("unresolved sequence")

        case .retryAfter(let code, let seconds):
            self.respond(
                context: context,
                status: code,
                headers: ["Content-Type": "text/plain", "Retry-After": String(seconds)],
                body: Data("retry after \(seconds) s\n".utf8)
            )

        case .redirect(let location, let code):
            self.respond(context: context, status: code, headers: ["Location": location], body: Data())

        case .hangBeforeHeaders:
            break

        case .hangAfter(let bytes, let declaredLength):
            self.writeHead(context: context, status: 200, headers: ["Content-Type": "image/jpeg", "Content-Length": String(declaredLength)])
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)

        case .trickle(let data, let bytesPerChunk, let interval):
            self.writeHead(context: context, status: 200, headers: ["Content-Type": "image/jpeg", "Content-Length": String(data.count)])
            context.flush()
            self.trickle(ByteBuffer(bytes: data), chunk: max(1, bytesPerChunk), interval: interval, context: context, response: response)

        case .endless(let chunk):
            self.writeHead(context: context, status: 200, headers: ["Content-Type": "image/jpeg", "Transfer-Encoding": "chunked"])
            context.flush()
            self.pump(ByteBuffer(bytes: chunk.isEmpty ? Data([0]) : chunk), context: context, response: response)

        case .lyingLength(let data, let declaredLength):
            self.writeHead(context: context, status: 200, headers: ["Content-Type": "image/jpeg", "Content-Length": String(declaredLength)])
            context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
            self.inFlightPath = nil
            // Not `.end`: the encoder must not be told the message is complete. Close once the
            // bytes are out, so the client sees EOF where the declared length says otherwise.
            context.flush()
            context.close(promise: nil)

        case .gzipBomb(let size):
            let bomb = self.state.gzipBomb(decompressedSize: size)
            self.respond(
                context: context,
                status: 200,
                headers: ["Content-Type": "image/jpeg", "Content-Encoding": "gzip"],
                body: ByteBuffer(bytes: bomb)
            )

        case .delayed(let seconds, let inner):
            context.eventLoop.assumeIsolated().scheduleTask(in: timeAmount(seconds)) {
                self.perform(inner, context: context, response: response)
            }
        }
    }

    private func trickle(_ remaining: ByteBuffer, chunk: Int, interval: Double, context: ChannelHandlerContext, response: Int) {
        guard self.isCurrent(response) else { return }
        var remaining = remaining
        guard let slice = remaining.readSlice(length: min(chunk, remaining.readableBytes)), slice.readableBytes > 0 else {
            self.finish(context: context)
            return
        }
        context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
        if remaining.readableBytes == 0 {
            self.finish(context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: timeAmount(interval)) {
            self.trickle(remaining, chunk: chunk, interval: interval, context: context, response: response)
        }
    }

    /// One chunk in flight at a time: the next is written when the previous one has reached
    /// the socket, so the server's memory stays flat however slowly the client reads.
    private func pump(_ chunk: ByteBuffer, context: ChannelHandlerContext, response: Int) {
        guard self.isCurrent(response) else { return }
        context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(chunk)))).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            // Through `execute`, because the write may complete synchronously and recursing
            // here would grow the stack without bound.
            context.eventLoop.assumeIsolated().execute {
                self.pump(chunk, context: context, response: response)
            }
        }
    }

    private func writeHead(context: ChannelHandlerContext, status: Int, headers: [(String, String)]) {
        var fields = HTTPHeaders(headers)
        if !self.keepAlive {
            fields.replaceOrAdd(name: "Connection", value: "close")
        }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
    }

    private func writeHead(context: ChannelHandlerContext, status: Int, headers: KeyValuePairs<String, String>) {
        self.writeHead(context: context, status: status, headers: headers.map { ($0.key, $0.value) })
    }

    private func respond(context: ChannelHandlerContext, status: Int, headers: KeyValuePairs<String, String>, body: Data) {
        self.respond(context: context, status: status, headers: headers, body: ByteBuffer(bytes: body))
    }

    private func respond(context: ChannelHandlerContext, status: Int, headers: KeyValuePairs<String, String>, body: ByteBuffer) {
        var fields = headers.map { ($0.key, $0.value) }
        fields.append(("Content-Length", String(body.readableBytes)))
        self.writeHead(context: context, status: status, headers: fields)
        if body.readableBytes > 0 {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        self.finish(context: context)
    }

    private func finish(context: ChannelHandlerContext) {
        self.inFlightPath = nil
        let close = !self.keepAlive
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if close { context.close(promise: nil) }
        }
    }
}

private func timeAmount(_ seconds: Double) -> TimeAmount {
    .nanoseconds(Int64(max(0, seconds) * 1_000_000_000))
}
