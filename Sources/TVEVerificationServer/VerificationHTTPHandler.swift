import Foundation
import NIOCore
import NIOHTTP1
import TVEVerification

/// One connection's requests: collect the body (bounded), answer, keep alive or close.
final class VerificationHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let service: VerificationService
    let log: RequestLog?
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false
    private var started = ContinuousClock.now

    init(service: VerificationService, log: RequestLog?) {
        self.service = service
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
            tooLarge = false
            started = ContinuousClock.now
        case .body(var chunk):
            guard !tooLarge else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > VerificationService.maximumBodyBytes {
                tooLarge = true
                body = nil
            } else if body == nil {
                body = chunk
            } else {
                body?.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let method = head.method.rawValue
            let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let body = self.body
            self.body = nil
            let keepAlive = head.isKeepAlive && !tooLarge
            if tooLarge {
                respond(
                    context: context, head: head, path: path, keepAlive: keepAlive, answer: service.answerBodyTooLarge(), started: started)
            } else if service.answersSynchronously || path != "/verify" {
                // In-process one-time use: answer on the event loop, no hop.
                let answer =
                    body?.withUnsafeReadableBytes { service.answer(method: method, path: path, body: $0) }
                    ?? service.answer(method: method, path: path, body: UnsafeRawBufferPointer(start: nil, count: 0))
                respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: answer, started: started)
            } else {
                // A replay store on the network: wait for it off the event loop, answer back on it. NIO's HTTP pipeline
                // holds the connection's next request until this response ends.
                let service = self.service
                let loop = context.eventLoop
                let bound = NIOLoopBound((self, context), eventLoop: loop)
                let started = self.started
                let pathText = String(path)
                Task {
                    let final = await service.answer(method: method, path: pathText, body: body.map { Array($0.readableBytesView) } ?? [])
                    loop.execute {
                        let (handler, context) = bound.value
                        handler.respond(
                            context: context, head: head, path: pathText[...], keepAlive: keepAlive, answer: final, started: started)
                    }
                }
            }
        }
    }

    /// Writes one answer and, without keep-alive, closes the connection once it is out.
    private func respond(
        context: ChannelHandlerContext, head: HTTPRequestHead, path: Substring, keepAlive: Bool, answer: VerificationAnswer,
        started: ContinuousClock.Instant
    ) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(4)
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if head.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: answer.body.utf8.count)
            buffer.writeString(answer.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            // Close once the answer is out (the promise is only made for a connection that closes).
            let done = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
            let channel = context.channel
            done.futureResult.whenComplete { _ in channel.close(promise: nil) }
        }
        log?.record(
            method: head.method.rawValue, path: String(path), status: answer.status, microseconds: RequestLog.microseconds(since: started))
    }
}
