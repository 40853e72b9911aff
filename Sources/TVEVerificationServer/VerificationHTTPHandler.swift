import NIOCore
import NIOHTTP1
import TVEConcurrency
import TVEVerification

/// One connection, right after the socket: its bytes go through the connection's ``HTTPRequestReader``, and the
/// request parts and other events to its ``ConnectionStateMachine``; it does what that answers: computes an answer (on the event loop when one-time use is in
/// process; in a task on the same event loop when it waits for a replay store), writes it as one buffer of bytes,
/// flushes once per event-loop tick, arms and cancels the timers, holds reads (by turning the channel's `autoRead` off)
/// when the requests pipelined behind an answer still computed pass their bound, closes. It is an inbound handler only:
/// NIO's reads do not pass through it.
final class VerificationHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What every connection of a server shares.
    struct Settings: Sendable {
        let service: VerificationService
        let log: RequestLog?
        let limits: ConnectionStateMachine.Limits
        /// The server's stop: a connection accepted once it has begun closes at once, and how long a busy one may still
        /// take.
        let shutdown: ShutdownState
        /// The answers still being computed (for the graceful stop).
        let inFlight: InFlightAnswers
        /// Each event loop's flush at the end of its tick.
        let flushers: TickFlushers
    }

    private let settings: Settings
    private let flusher: TickFlusher
    private var machine: ConnectionStateMachine
    /// The connection's bytes as request parts.
    private var reader = HTTPRequestReader()
    /// The connection's event loop as a task executor: a request's task (waiting for an asynchronous replay store) runs
    /// here, on the thread that owns the connection. Made on the first such request.
    private var executor: LoopTaskExecutor?
    private var bodyDeadline: Scheduled<Void>?
    private var headDeadline: Scheduled<Void>?
    private var idleCheck: Scheduled<Void>?
    private var forcedClose: Scheduled<Void>?
    /// Reads are held: the channel's `autoRead` is off until the requests kept behind an answer are handled.
    private var readsHeld = false
    /// Answers written and not flushed yet (flushed at the end of the event loop's tick).
    private var unflushed = false
    /// Inside a read burst (answers then wait for its end to be flushed together).
    private var reading = false
    /// A flush is scheduled for the end of the event loop's tick.
    private var flushScheduled = false
    /// The time an answer was written in the current read burst (its end reuses it: one clock read less per request).
    private var answeredAt: NIODeadline?

    /// A handler for a connection of `loop`.
    init(_ settings: Settings, loop: any EventLoop) {
        self.settings = settings
        flusher = settings.flushers.flusher(for: loop)
        machine = ConnectionStateMachine(limits: settings.limits, now: .now())
    }

    // MARK: Events

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armIdleCheck(context: context, at: .now() + settings.limits.idleTimeout) }
        // Accepted while the server stops: quiesce at once (closes, as nothing is in progress).
        if settings.shutdown.grace != nil { quiesce(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armIdleCheck(context: context, at: .now() + settings.limits.idleTimeout)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        reader.feed(unwrapInboundIn(data))
        do {
            while let part = try reader.next() { handle(part, context: context) }
        } catch {
            refuse(error, context: context)
        }
        if machine.holdsReads, !readsHeld {
            readsHeld = true
            setAutoRead(false, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        let action = machine.readComplete(now: answeredAt ?? .now())
        answeredAt = nil
        if let deadline = action.bodyDeadline {
            bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
                if self.machine.bodyDeadlineFired() { context.close(promise: nil) }
            }
        }
        if action.armHeadDeadline {
            headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: settings.limits.headTimeout) {
                if self.machine.headDeadlineFired() { context.close(promise: nil) }
            }
        }
        flushAtEndOfTick(context: context)
        context.fireChannelReadComplete()
    }

    private func setAutoRead(_ on: Bool, context: ChannelHandlerContext) {
        // On the channel's own loop, the option is set at once (turning it on reads again).
        _ = try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: on)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            quiesce(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The reader refused the bytes (RFC 9112's grammar, its limits): 400 (501 for an unknown transfer coding) when no
    /// answer is due, then close, as NIO's `HTTPServerProtocolErrorHandler` does; the reader drops whatever follows.
    private func refuse(_ failure: HTTPRequestReader.Failure, context: ChannelHandlerContext) {
        switch machine.state {
        case .closing:
            break  // already answered and closing
        case .answering:
            context.close(promise: nil)
        case .idle, .reading:
            _ = machine.shouldQuiesce()  // nothing more is read or answered on this connection
            cancelTimers()
            let channel = context.channel
            let bytes = failure.status == 501 ? ResponseBytes.notImplemented : ResponseBytes.badRequest
            context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    // MARK: Requests

    private func handle(_ part: HTTPRequestReader.Part, context: ChannelHandlerContext) {
        if case .head = part {
            headDeadline?.cancel()
            headDeadline = nil
        }
        switch machine.received(part, now: .now()) {
        case .none:
            break
        case .refuse(let request, let refusal):
            // Refused from the head: the body is not read.
            let answer =
                switch refusal {
                case .unauthorized: ResponseBytes.unauthorized
                case .bodyTooLarge: request.route == .verify ? settings.service.answerBodyTooLarge() : ResponseBytes.tooLarge
                }
            write(answer, for: request, mode: .closeLingering, challenge: refusal == .unauthorized, context: context)
        case .answer(let request, let body, let tooLarge):
            bodyDeadline?.cancel()
            bodyDeadline = nil
            answer(request, body: body, tooLarge: tooLarge, context: context)
        }
    }

    private func answer(_ request: ConnectionStateMachine.Request, body: ByteBuffer?, tooLarge: Bool, context: ChannelHandlerContext) {
        if request.route == .health, !tooLarge {  // the most frequent: no copy of the service
            write(ResponseBytes.healthAnswer, for: request, mode: machine.answerReady(keepAlive: true), context: context)
            return
        }
        let service = settings.service
        if tooLarge {
            write(service.answerBodyTooLarge(), for: request, mode: machine.answerReady(keepAlive: false), context: context)
            return
        }
        switch request.route {
        case .verify where !service.answersSynchronously:
            answerLater(request, body: body, context: context)
        case .verify:
            // In-process one-time use: answer on the event loop, no hop.
            let answer =
                body?.withUnsafeReadableBytes { service.verify($0) } ?? service.verify(UnsafeRawBufferPointer(start: nil, count: 0))
            write(answer, for: request, mode: machine.answerReady(keepAlive: true), context: context)
        case .health:
            write(ResponseBytes.healthAnswer, for: request, mode: machine.answerReady(keepAlive: true), context: context)
        case let route:
            write(service.answer(route), for: request, mode: machine.answerReady(keepAlive: true), context: context)
        }
    }

    /// A replay store on the network: the request's task prefers this connection's event loop, so the wait for the
    /// store resumes here and the answer is written from here. What is read meanwhile is kept by the state machine.
    private func answerLater(_ request: ConnectionStateMachine.Request, body: ByteBuffer?, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let executor = self.executor ?? LoopTaskExecutor { loop.execute($0) }
        self.executor = executor
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let bytes = body.map { Array($0.readableBytesView) } ?? []
        let (service, inFlight) = (settings.service, settings.inFlight)
        inFlight.started()
        Task(executorPreference: executor) {
            defer { inFlight.ended() }
            let answer = await service.verify(bytes)
            let finish: @Sendable () -> Void = {
                let (handler, context) = bound.value
                handler.write(answer, for: request, mode: handler.machine.answerReady(keepAlive: true), context: context)
                handler.resume(context: context)
            }
            if loop.inEventLoop { finish() } else { loop.execute(finish) }
        }
    }

    /// After an answer computed in a task: the requests that came meanwhile (none when the client has gone), then
    /// reads again if they were held.
    private func resume(context: ChannelHandlerContext) {
        let pending = machine.takePending()
        if context.channel.isActive {
            for part in pending { handle(part, context: context) }
        }
        flushIfNeeded(context: context)
        if readsHeld, !machine.holdsReads {
            readsHeld = false
            setAutoRead(true, context: context)
        }
    }

    /// Writes one answer (flushed at the end of the tick when kept alive) and, without keep-alive, closes the
    /// connection once it is out.
    private func write(
        _ answer: VerificationAnswer, for request: ConnectionStateMachine.Request, mode: ConnectionStateMachine.ResponseMode,
        challenge: Bool = false, context: ChannelHandlerContext
    ) {
        if let log = settings.log {
            let now = NIODeadline.now()
            if reading { answeredAt = now }
            log.record(
                method: request.method.rawValue, path: String(request.path), status: answer.status,
                microseconds: Int((now - request.started).nanoseconds / 1000))
        }
        let includeBody = request.method != .HEAD
        let bytes: ByteBuffer
        if mode == .keepAlive, request.route == .health, request.version == .http1_1 {
            bytes = includeBody ? ResponseBytes.health : ResponseBytes.healthHead  // encoded once
        } else {
            var buffer = context.channel.allocator.buffer(capacity: 0)
            ResponseBytes.write(
                answer, version: request.version, includeBody: includeBody, close: mode != .keepAlive, challenge: challenge, into: &buffer)
            bytes = buffer
        }
        switch mode {
        case .keepAlive:
            context.write(wrapOutboundOut(bytes), promise: nil)
            unflushed = true
            if !reading { flushIfNeeded(context: context) }
        case .close:
            cancelTimers()
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
        case .closeLingering:
            // The client may still be sending the body it announced: close our side only, drop what still comes (so that
            // the kernel does not answer it with a reset that would lose the answer), and close after 2 s.
            cancelTimers()
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
            }
        }
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard unflushed else { return }
        unflushed = false
        context.flush()
    }

    /// Flushes once the event loop has handled every connection that was ready in this tick (``TickFlusher``: one task
    /// per tick for all the loop's connections).
    private func flushAtEndOfTick(context: ChannelHandlerContext) {
        guard unflushed, !flushScheduled else { return }
        flushScheduled = true
        flusher.flushAtEndOfTick(self, context: context)
    }

    /// The end of the tick in which ``flushAtEndOfTick(context:)`` was called (``TickFlusher`` calls it).
    func flushScheduledForTick(context: ChannelHandlerContext) {
        flushScheduled = false
        flushIfNeeded(context: context)
    }

    // MARK: Timers and the stop

    private func quiesce(context: ChannelHandlerContext) {
        if machine.shouldQuiesce() {
            context.close(promise: nil)
        } else if forcedClose == nil {
            // The request in flight is answered with Connection: close; after the grace it is closed whatever happens.
            forcedClose = context.eventLoop.assumeIsolated().scheduleTask(in: settings.shutdown.grace ?? .zero) {
                context.close(promise: nil)
            }
        }
    }

    /// Closes the connection when the state machine says it has been idle for the idle timeout; else checks again.
    private func armIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        idleCheck?.cancel()  // one check at a time (handlerAdded and channelActive may both arm it)
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.idleCheck = nil
            guard context.channel.isActive else { return }
            switch self.machine.idleCheck(now: .now()) {
            case .close: context.close(promise: nil)
            case .checkAgain(let next): self.armIdleCheck(context: context, at: next)
            }
        }
    }

    private func cancelTimers() {
        for timer in [bodyDeadline, headDeadline, idleCheck] { timer?.cancel() }
        (bodyDeadline, headDeadline, idleCheck) = (nil, nil, nil)
    }
}
