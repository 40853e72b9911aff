import Foundation
import NIOCore
import NIOHTTP1
import TVEVerification

/// One connection's requests: collect the body (bounded in size and time), check the bearer secret when there is one,
/// answer, keep alive or close.
final class VerificationHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What every connection of a server shares.
    struct Settings: Sendable {
        let service: VerificationService
        let log: RequestLog?
        let bearerSecret: BearerSecret?
        let idleTimeout: TimeAmount
        let bodyTimeout: TimeAmount
    }

    private let settings: Settings
    /// The connection's event loop as a task executor: a request's task (waiting for an asynchronous replay store) runs
    /// here, on the thread that owns the connection.
    private let executor: EventLoopTaskExecutor
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false
    /// The head declared a body over the limit: answered 413 at once, the rest of the request is dropped.
    private var answeredEarly = false
    /// A request whose answer is not written yet (the idle timeout leaves the connection alone meanwhile).
    private var answering = false
    private var bodyDeadline: Scheduled<Void>?
    private var started = ContinuousClock.now

    init(_ settings: Settings, eventLoop: any EventLoop) {
        self.settings = settings
        executor = EventLoopTaskExecutor(eventLoop)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
            tooLarge = false
            answeredEarly = false
            started = ContinuousClock.now
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > VerificationService.maximumBodyBytes
            {
                // Answer before reading the body, and close.
                answeredEarly = true
                answering = true
                let path = Self.path(head)
                respond(context: context, head: head, path: path, keepAlive: false, answer: settings.service.answerBodyTooLarge())
                return
            }
            let channel = context.channel
            bodyDeadline = context.eventLoop.scheduleTask(in: settings.bodyTimeout) { channel.close(promise: nil) }
        case .body(var chunk):
            guard !tooLarge, !answeredEarly else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > VerificationService.maximumBodyBytes {
                tooLarge = true
                body = nil
            } else if body == nil {
                body = chunk
            } else {
                body?.writeBuffer(&chunk)
            }
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
            guard let head, !answeredEarly else {
                self.head = nil
                return
            }
            self.head = nil
            answer(context: context, head: head, body: self.body)
            self.body = nil
        }
    }

    /// The request target without its query.
    private static func path(_ head: HTTPRequestHead) -> Substring {
        head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    private func answer(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?) {
        let method = head.method.rawValue
        let path = Self.path(head)
        let keepAlive = head.isKeepAlive && !tooLarge
        let service = settings.service
        answering = true
        if tooLarge {
            respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: service.answerBodyTooLarge())
        } else if let secret = settings.bearerSecret, path == "/verify" || path == "/metrics",
            !secret.accepts(authorization: head.headers.first(name: "authorization"))
        {
            respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: Self.unauthorized, challenge: true)
        } else if service.answersSynchronously || path != "/verify" {
            // In-process one-time use: answer on the event loop, no hop.
            let answer =
                body?.withUnsafeReadableBytes { service.answer(method: method, path: path, body: $0) }
                ?? service.answer(method: method, path: path, body: UnsafeRawBufferPointer(start: nil, count: 0))
            respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: answer)
        } else {
            // A replay store on the network: the request's task prefers this connection's event loop, so the wait for the
            // store resumes here and the answer is written from here. NIO's HTTP pipeline holds the connection's next
            // request until this response ends.
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            let pathText = String(path)
            let bytes = body.map { Array($0.readableBytesView) } ?? []
            Task(executorPreference: executor) {
                let final = await service.answer(method: method, path: pathText, body: bytes)
                let write: @Sendable () -> Void = {
                    let (handler, context) = bound.value
                    handler.respond(context: context, head: head, path: pathText[...], keepAlive: keepAlive, answer: final)
                }
                if loop.inEventLoop { write() } else { loop.execute(write) }
            }
        }
    }

    static let unauthorized = VerificationAnswer(
        status: 401, contentType: "application/json",
        body: #"{"error":"unauthorized","reason":"this endpoint needs Authorization: Bearer with the service's secret"}"#, result: nil)

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Nothing received for the idle timeout, and no request being read or answered: close.
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, head == nil, !answering {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        context.fireChannelInactive()
    }

    /// Writes one answer and, without keep-alive, closes the connection once it is out.
    private func respond(
        context: ChannelHandlerContext, head: HTTPRequestHead, path: Substring, keepAlive: Bool, answer: VerificationAnswer,
        challenge: Bool = false
    ) {
        answering = false
        var headers = HTTPHeaders()
        headers.reserveCapacity(5)
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
        if challenge { headers.add(name: "WWW-Authenticate", value: "Bearer") }
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
        settings.log?.record(
            method: head.method.rawValue, path: String(path), status: answer.status, microseconds: RequestLog.microseconds(since: started))
    }
}

/// An event loop as a Swift task executor: jobs of tasks that prefer it run on the loop's thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
