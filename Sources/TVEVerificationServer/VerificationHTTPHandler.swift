import Foundation
import NIOCore
import NIOHTTP1
import TVEVerification

/// One connection's requests: collect the body (bounded in size and time), check the bearer secret when there is one,
/// answer, keep alive or close; and the connection's idle timeout (kept here rather than in NIO's `IdleStateHandler`,
/// one handler less for every read and write of every request).
final class VerificationHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What every connection of a server shares.
    struct Settings: Sendable {
        let service: VerificationService
        let log: RequestLog?
        let bearerSecret: BearerSecret?
        let idleTimeout: TimeAmount
        let headTimeout: TimeAmount
        let bodyTimeout: TimeAmount
        /// The server's connections and answers in flight (for the graceful stop).
        let tracker: ConnectionTracker
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
    /// When the head of the request being read arrived (its body must be complete ``Settings/bodyTimeout`` later).
    private var headArrived: NIODeadline?
    /// The timer that closes a connection whose body is late: armed only when a read burst ends with the request
    /// incomplete (most requests arrive whole in one read and never need it).
    private var bodyDeadline: Scheduled<Void>?
    /// The timer that closes a connection whose request head is late: armed at the end of a read that brought bytes of
    /// a head but not the whole head (no request being read or answered, none ended in that read).
    private var headDeadline: Scheduled<Void>?
    /// The read in progress brought a request's end (the decoder may keep the start of the next head, or nothing).
    private var requestEndedInThisRead = false
    private var started = ContinuousClock.now
    /// When the connection last received bytes (set at the end of each read burst).
    private var lastRead = NIODeadline.now()
    /// The idle check: fires ``Settings/idleTimeout`` after the last read, then re-arms for the next.
    private var idleCheck: Scheduled<Void>?

    init(_ settings: Settings, eventLoop: any EventLoop) {
        self.settings = settings
        executor = EventLoopTaskExecutor(eventLoop)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headDeadline?.cancel()
            headDeadline = nil
            self.head = head
            body = nil
            tooLarge = false
            answeredEarly = false
            started = ContinuousClock.now
            let path = Self.path(head)
            if let secret = settings.bearerSecret, Self.needsSecret(path),
                !secret.accepts(authorization: head.headers.first(name: "authorization"))
            {
                // Refused from the head: the body is not read.
                answeredEarly = true
                answering = true
                respond(
                    context: context, head: head, path: path, keepAlive: false, answer: Self.unauthorized, started: started,
                    challenge: true, lingering: true)
                return
            }
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > VerificationService.maximumBodyBytes
            {
                // Answered before the body is read, and closed.
                answeredEarly = true
                answering = true
                let answer = path == "/verify" ? settings.service.answerBodyTooLarge() : Self.tooLarge
                respond(context: context, head: head, path: path, keepAlive: false, answer: answer, started: started, lingering: true)
                return
            }
            headArrived = NIODeadline.now()
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
            requestEndedInThisRead = true
            headArrived = nil
            bodyDeadline?.cancel()
            bodyDeadline = nil
            // Take the request's state out first: writing its answer can hand the next pipelined request in at once.
            let (head, body, started) = (self.head, self.body, self.started)
            self.head = nil
            self.body = nil
            guard let head, !answeredEarly else { return }
            answer(context: context, head: head, body: body, started: started)
        }
    }

    /// The request target without its query.
    private static func path(_ head: HTTPRequestHead) -> Substring {
        let uri = head.uri
        return uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        lastRead = NIODeadline.now()
        // A request still being read at the end of a read burst: its body must be complete in time.
        if let headArrived, bodyDeadline == nil, !answeredEarly {
            let channel = context.channel
            bodyDeadline = context.eventLoop.scheduleTask(deadline: headArrived + settings.bodyTimeout) { channel.close(promise: nil) }
        }
        // Bytes that brought no head while none is in progress: the start of a head, which must be whole in time.
        if head == nil, !answering, !requestEndedInThisRead, headDeadline == nil {
            let channel = context.channel
            headDeadline = context.eventLoop.scheduleTask(in: settings.headTimeout) { channel.close(promise: nil) }
        }
        requestEndedInThisRead = false
        context.fireChannelReadComplete()
    }

    private func answer(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: ContinuousClock.Instant) {
        let method = head.method.rawValue
        let path = Self.path(head)
        let keepAlive = head.isKeepAlive && !tooLarge
        let service = settings.service
        answering = true
        // A missing or wrong bearer secret was refused from the head (channelRead), before any body was read.
        if tooLarge {
            respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: service.answerBodyTooLarge(), started: started)
        } else if service.answersSynchronously || path != "/verify" {
            // In-process one-time use: answer on the event loop, no hop.
            let answer =
                body?.withUnsafeReadableBytes { service.answer(method: method, path: path, body: $0) }
                ?? service.answer(method: method, path: path, body: UnsafeRawBufferPointer(start: nil, count: 0))
            respond(context: context, head: head, path: path, keepAlive: keepAlive, answer: answer, started: started)
        } else {
            // A replay store on the network: the request's task prefers this connection's event loop, so the wait for the
            // store resumes here and the answer is written from here. NIO's HTTP pipeline holds the connection's next
            // request until this response ends.
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            let pathText = String(path)
            let bytes = body.map { Array($0.readableBytesView) } ?? []
            let tracker = settings.tracker
            tracker.taskStarted()
            Task(executorPreference: executor) {
                defer { tracker.taskEnded() }
                let final = await service.answer(method: method, path: pathText, body: bytes)
                let write: @Sendable () -> Void = {
                    let (handler, context) = bound.value
                    handler.respond(
                        context: context, head: head, path: pathText[...], keepAlive: keepAlive, answer: final, started: started)
                }
                if loop.inEventLoop { write() } else { loop.execute(write) }
            }
        }
    }

    /// The routes a bearer secret protects.
    static func needsSecret(_ path: Substring) -> Bool { path == "/verify" || path == "/metrics" }

    static let tooLarge = VerificationAnswer(
        status: 413, contentType: "application/json",
        body: #"{"error":"bodyTooLarge","reason":"the body is over \#(VerificationService.maximumBodyBytes) bytes"}"#, result: nil)

    static let unauthorized = VerificationAnswer(
        status: 401, contentType: "application/json",
        body: #"{"error":"unauthorized","reason":"this endpoint needs Authorization: Bearer with the service's secret"}"#, result: nil)

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armIdleCheck(context: context, at: NIODeadline.now() + settings.idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        lastRead = NIODeadline.now()
        armIdleCheck(context: context, at: lastRead + settings.idleTimeout)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
        headDeadline?.cancel()
        headDeadline = nil
    }

    /// Closes the connection when nothing was received for the idle timeout and no request is being read or answered;
    /// otherwise checks again an idle timeout after the last read.
    private func armIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        // One check at a time (handlerAdded and channelActive may both arm it).
        idleCheck?.cancel()
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.idleCheck = nil
            guard context.channel.isActive else { return }
            let (now, due) = (NIODeadline.now(), self.lastRead + self.settings.idleTimeout)
            if now < due {
                self.armIdleCheck(context: context, at: due)  // something was read meanwhile
            } else if self.head == nil, !self.answering {
                context.close(promise: nil)
            } else {
                self.armIdleCheck(context: context, at: now + self.settings.idleTimeout)  // a request in progress
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        headDeadline?.cancel()
        headDeadline = nil
        idleCheck?.cancel()
        idleCheck = nil
        context.fireChannelInactive()
    }

    /// Whether a flush of this connection is already scheduled for the end of the loop's tick.
    private var flushScheduled = false

    /// Flushes once the event loop has handled every connection that was ready in this tick: the answers of one tick then
    /// leave back to back, so that a client's thread woken by the first finds the others already there (one wake-up per
    /// tick instead of one per answer, which on loopback costs as much as the answer itself).
    private func flushAtEndOfTick(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            context.flush()
        }
    }

    /// Writes one answer and, without keep-alive, closes the connection once it is out.
    private func respond(
        context: ChannelHandlerContext, head: HTTPRequestHead, path: Substring, keepAlive: Bool, answer: VerificationAnswer,
        started: ContinuousClock.Instant, challenge: Bool = false, lingering: Bool = false
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
        // Logged before the answer is written: writing it can hand the next pipelined request in.
        settings.log?.record(
            method: head.method.rawValue, path: String(path), status: answer.status, microseconds: RequestLog.microseconds(since: started))
        if keepAlive {
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            flushAtEndOfTick(context: context)
        } else {
            // Close once the answer is out (the promise is only made for a connection that closes).
            let done = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
            let channel = context.channel
            if lingering {
                // The client may still be sending the body it announced: close our side only, drop what still comes
                // (so that the kernel does not answer it with a reset that would lose the answer), and close after 2 s.
                done.futureResult.whenComplete { _ in
                    channel.close(mode: .output, promise: nil)
                    channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                }
            } else {
                done.futureResult.whenComplete { _ in channel.close(promise: nil) }
            }
        }
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
