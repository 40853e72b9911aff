import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import TVEVerification

/// The verification service on a lean HTTP/1.1 server: SwiftNIO's HTTP pipeline and one handler that answers on the
/// event loop. A verification is a few microseconds of CPU work with no I/O, so it runs where the request arrived:
/// no hop to a task, no second thread pool. `tvekit serve --verifier-only` runs this; `TVEServiceProvider` mounts the
/// same answers on a Hummingbird router.
///
/// A ServiceLifecycle `Service`: run it in a `ServiceGroup`, which stops it on a graceful shutdown (SIGTERM or SIGINT
/// when the group is configured for them) or on cancellation. On either, it closes the listener and lets open
/// requests finish. Bodies over ``VerificationService/maximumBodyBytes`` are answered 413 and the connection is
/// closed; keep-alive follows the request; request heads are limited by NIO's parser (80 KiB).
public struct VerificationHTTPServer: Service {
    public let service: VerificationService
    public let host: String
    public let port: Int
    public let threads: Int
    public let log: RequestLog?
    private let onBound: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - port: the port to listen on; 0 picks a free one.
    ///   - threads: event-loop threads; one per core by default.
    ///   - log: one line per request (method, path, status, time; never bodies).
    ///   - onBound: called with the bound port once the server listens.
    public init(
        service: VerificationService, host: String = "127.0.0.1", port: Int = 0, threads: Int = System.coreCount,
        log: RequestLog? = nil, onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.service = service
        self.host = host
        self.port = port
        self.threads = max(1, threads)
        self.log = log
        self.onBound = onBound
    }

    /// Serves until a graceful shutdown or cancellation, then closes the listener and lets open requests finish.
    public func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let service = self.service
        let log = self.log
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(VerificationHTTPHandler(service: service, log: log))
                    }
                }
                .bind(host: host, port: port).get()
            onBound(channel.localAddress?.port ?? port)
            // Until the group asks for a graceful shutdown, or the task is cancelled.
            try? await gracefulShutdown()
            try? await channel.close()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}
