import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

/// The verification service on a lean HTTP/1.1 server: SwiftNIO's HTTP pipeline and one handler that answers on the
/// event loop. A verification is a few microseconds of CPU work with no I/O, so it runs where the request arrived:
/// no hop to a task, no second thread pool. `tvekit serve --verifier-only` runs this; the Hummingbird routes of
/// ``VerificationService/addRoutes(to:)`` serve the same answers next to the service provider.
///
/// Bodies over ``VerificationService/maximumBodyBytes`` are answered 413 and the connection is closed; keep-alive
/// follows the request; request heads are limited by NIO's parser (80 KiB).
public struct VerificationHTTPServer: Sendable {
    public let service: VerificationService
    public let log: RequestLog?

    public init(service: VerificationService, log: RequestLog? = nil) {
        self.service = service
        self.log = log
    }

    /// Serves on `host:port` (0 picks a free port) until `stop` completes, then closes the listener and lets open
    /// requests finish.
    /// - Parameters:
    ///   - threads: event-loop threads; one per core by default.
    ///   - onBound: called with the bound port once the server listens.
    public func run(
        host: String, port: Int, threads: Int = System.coreCount, onBound: @Sendable (Int) -> Void = { _ in },
        until stop: @Sendable () async -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
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
            await stop()
            try? await channel.close()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}

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
            let answer: VerificationService.Answer
            let method = HTTPRequest.Method(head.method.rawValue) ?? .get
            let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if tooLarge {
                answer = VerificationService.tooLarge
            } else if let body {
                answer = body.withUnsafeReadableBytes { service.answer(method: method, path: path, body: $0) }
            } else {
                answer = service.answer(method: method, path: path, body: UnsafeRawBufferPointer(start: nil, count: 0))
            }
            self.body = nil
            if path == "/verify", method == .post {
                service.metrics.record(result: answer.result ?? "BAD_REQUEST", elapsed: ContinuousClock.now - started)
            }
            let keepAlive = head.isKeepAlive && !tooLarge
            var headers = HTTPHeaders()
            headers.reserveCapacity(4)
            headers.add(name: "Content-Type", value: answer.contentType)
            headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let responseHead = HTTPResponseHead(
                version: head.version, status: HTTPResponseStatus(statusCode: answer.status.code), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            if head.method != .HEAD {
                var buffer = context.channel.allocator.buffer(capacity: answer.body.utf8.count)
                buffer.writeString(answer.body)
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            }
            let done = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
            if !keepAlive {
                let channel = context.channel
                done.futureResult.whenComplete { _ in channel.close(promise: nil) }
            }
            if let log {
                let elapsed = ContinuousClock.now - started
                log.record(
                    method: head.method.rawValue, path: String(path), status: answer.status.code,
                    microseconds: Int(elapsed.components.seconds) * 1_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000_000))
            }
        }
    }
}

/// Waits for SIGINT or SIGTERM (for servers that stop cleanly on either).
public enum TerminationSignal {
    /// Returns once the process receives SIGINT or SIGTERM; their default action (exit) is replaced while waiting.
    public static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = Waiter(continuation)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { waiter.fire() }
                waiter.keep(source)
                source.resume()
            }
        }
    }

    /// Resumes the continuation once and keeps the signal sources alive until then.
    private final class Waiter: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, Never>?
        private var sources: [any DispatchSourceSignal] = []

        init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

        func keep(_ source: any DispatchSourceSignal) {
            lock.lock()
            sources.append(source)
            lock.unlock()
        }

        func fire() {
            lock.lock()
            let pending = continuation
            continuation = nil
            let stopped = sources
            sources = []
            lock.unlock()
            stopped.forEach { $0.cancel() }
            pending?.resume()
        }
    }
}
