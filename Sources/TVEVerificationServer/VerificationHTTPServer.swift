import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import TVEConcurrency
import TVEVerification

/// The verification service on a lean HTTP/1.1 server: SwiftNIO's channel and one handler that reads requests strictly
/// (RFC 9112's grammar; what request smuggling is made of is refused with 400) and answers on the event loop, its
/// connection's state one state machine, its answers written as bytes. A verification is a few microseconds of CPU work
/// with no I/O, so it runs where the request arrived: no hop to a task, no second thread pool. With an asynchronous replay store the request's task runs on the same event
/// loop (its executor preference), so waiting for the store does not move the request to another thread either; give
/// the store's client the same event-loop group. `tvekit serve --verifier-only` runs this; `TVEServiceProvider` mounts
/// the same answers on a Hummingbird router.
///
/// A ServiceLifecycle `Service`: run it in a `ServiceGroup`, which stops it on a graceful shutdown (SIGTERM or SIGINT
/// when the group is configured for them) or on cancellation. Then it closes the listener and quiesces every open
/// connection (swift-nio-extras' `ServerQuiescingHelper`, NIO's `ChannelShouldQuiesceEvent`): an idle one closes at
/// once, one with a request in flight closes once its answer is out (a replay store's answer included), and whatever is left after ``Timeouts/shutdown`` is closed. The event-loop group is the caller's
/// (NIO's shared singleton by default) and outlives the server.
///
/// Limits: a body over `VerificationService/maximumBodyBytes` is answered 413 as soon as the head declares it, and the
/// connection closes; a body that passes the limit without declaring it (chunked) is dropped from there on, never
/// buffered, and answered 413 when the request ends (or closed at ``Timeouts/body``); a connection that sends nothing
/// for ``Timeouts/idle`` is closed; a request head not whole within ``Timeouts/head`` of its first bytes closes the
/// connection, and so does a body not complete within ``Timeouts/body`` of its head; request heads are limited to 80 KiB
/// and 128 field lines. Keep-alive follows the request. With a ``BearerSecret``, `POST /verify` and `GET /metrics` need
/// `Authorization: Bearer <secret>` (401 otherwise); `GET /health` stays open.
public struct VerificationHTTPServer: Service {
    /// How long the server waits for a client, and for open requests when it stops.
    public struct Timeouts: Sendable, Hashable {
        /// A connection with no request in progress and nothing received for this long is closed.
        public var idle: Duration
        /// A request head not whole this long after its first bytes arrived closes the connection, however steadily
        /// its bytes come (each byte would keep the idle timeout away). It counts from the end of the first read that
        /// brings part of the head; when that read also ended the previous request, from the end of the next read.
        public var head: Duration
        /// A request whose body is not complete this long after its head closes the connection.
        public var body: Duration
        /// On shutdown, connections still open after this long are closed.
        public var shutdown: Duration

        /// Timeouts of 10 s each by default.
        public init(
            idle: Duration = .seconds(10), head: Duration = .seconds(10), body: Duration = .seconds(10), shutdown: Duration = .seconds(10)
        ) {
            self.idle = idle
            self.head = head
            self.body = body
            self.shutdown = shutdown
        }
    }

    /// The service that answers the requests.
    public let service: VerificationService
    /// The address the server listens on (`127.0.0.1` by default).
    public let host: String
    /// The port asked for; 0 picks a free one, which `onBound` reports.
    public let port: Int
    /// Where connections are served; the caller owns it and the server never shuts it down.
    public let eventLoopGroup: any EventLoopGroup
    /// How long the server waits for clients and, when it stops, for open requests.
    public let timeouts: Timeouts
    /// When set, `POST /verify` and `GET /metrics` need it as a bearer token (401 otherwise).
    public let bearerSecret: BearerSecret?
    /// Where one line per request goes (method, path, status, time); nil for none. Run it in the same `ServiceGroup`.
    public let log: RequestLog?
    /// The caller's logger: the server's start and stop, and connection errors (at `debug`).
    public let logger: Logger
    private let onBound: @Sendable (Int) -> Void

    /// A server for `service`; it listens once run.
    /// - Parameters:
    ///   - service: the verification service that answers every request.
    ///   - host: the address to listen on; loopback by default.
    ///   - port: the port to listen on; 0 picks a free one.
    ///   - eventLoopGroup: where connections are served (and where an asynchronous replay store's client should run too);
    ///     NIO's shared group by default. The caller owns it: the server never shuts it down.
    ///   - timeouts: the idle, head, body and shutdown timeouts (``Timeouts``).
    ///   - bearerSecret: when given, `POST /verify` and `GET /metrics` need it as a bearer token.
    ///   - log: one line per request (method, path, status, time; never bodies or credentials); run it in the same
    ///     `ServiceGroup` (it is a `Service`).
    ///   - logger: the caller's logger, for the server's start and stop (never a request's content).
    ///   - onBound: called with the bound port once the server listens.
    public init(
        service: VerificationService, host: String = "127.0.0.1", port: Int = 0,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, timeouts: Timeouts = Timeouts(),
        bearerSecret: BearerSecret? = nil, log: RequestLog? = nil, logger: Logger = Logger(label: "tvekit.verification-server"),
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.service = service
        self.host = host
        self.port = port
        self.eventLoopGroup = eventLoopGroup
        self.timeouts = timeouts
        self.bearerSecret = bearerSecret
        self.log = log
        self.logger = logger
        self.onBound = onBound
    }

    /// Serves until a graceful shutdown or cancellation, then closes the listener and quiesces open connections.
    public func run() async throws {
        let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
        let settings = VerificationHTTPHandler.Settings(
            service: service, log: log,
            limits: .init(
                bearerSecret: bearerSecret, idleTimeout: TimeAmount(timeouts.idle), headTimeout: TimeAmount(timeouts.head),
                bodyTimeout: TimeAmount(timeouts.body)),
            shutdown: ShutdownState(), inFlight: InFlightAnswers(), flushers: TickFlushers())
        let channel = try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // One handler: it reads requests with its own strict reader, keeps the connection's state (pipelining
                    // included) and writes its answers as bytes, so NIO's decoder, encoder, pipelining and error handlers are
                    // not needed.
                    try channel.pipeline.syncOperations.addHandler(VerificationHTTPHandler(settings, loop: channel.eventLoop))
                }
            }
            .bind(host: host, port: port).get()
        let bound = channel.localAddress?.port ?? port
        logger.debug("verification server listening", metadata: ["port": "\(bound)"])
        onBound(bound)
        // Until the group asks for a graceful shutdown, or the task is cancelled.
        try? await gracefulShutdown()
        let cancelled = Task.isCancelled
        // A cancelled stop closes every connection at once; a graceful one lets each answer its request in flight.
        settings.shutdown.begin(grace: cancelled ? .zero : TimeAmount(timeouts.shutdown))
        logger.debug("verification server stopping", metadata: ["graceful": "\(!cancelled)"])
        let closed = channel.eventLoop.makePromise(of: Void.self)
        quiescing.initiateShutdown(promise: closed)
        // Every connection closes within the grace (its handler closes it then); the answers still computed in tasks
        // end within the replay store's timeout.
        let loop = channel.eventLoop
        try? await withDeadline(on: loop, timeouts.shutdown * 2) { try await closed.futureResult.get() }
        try? await withDeadline(on: loop, timeouts.shutdown) { await settings.inFlight.drained() }
        logger.debug("verification server stopped")
    }

    /// `body`, or nothing once `deadline` has passed (or the task is cancelled).
    private func withDeadline(on loop: any EventLoop, _ deadline: Duration, _ body: @escaping @Sendable () async throws -> Void)
        async throws
    {
        try await TVEConcurrency.withDeadline(
            executor: nil,
            arm: { fire in
                let timer = loop.scheduleTask(in: TimeAmount(deadline), fire)
                return { timer.cancel() }
            },
            timedOut: { CancellationError() }, body)
    }
}
