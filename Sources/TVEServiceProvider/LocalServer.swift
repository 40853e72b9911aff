import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Runs a router on loopback for the length of a closure, then shuts the server down gracefully: open connections
/// finish instead of being cancelled under their writers. For tests, `tvekit demo` and tools.
public enum LocalServer {
    /// How long a connection may stay idle (no request, or between requests) before it is closed: 10 seconds.
    public static let idleTimeout: TimeAmount = .seconds(10)
    /// How long a request head may take to arrive whole, from the end of the first read that brings part of it: 10
    /// seconds. A slower client's connection is closed.
    public static let headTimeout: TimeAmount = .seconds(10)

    /// HTTP/1.1 with ``idleTimeout`` and ``headTimeout``: the server the service provider runs on (here and in `tvekit
    /// serve`). The body's own deadline is the service provider's (``ServiceProvider/bodyReadTimeout``).
    public static func http1(idleTimeout: TimeAmount = idleTimeout, headTimeout: TimeAmount = headTimeout) -> HTTPServerBuilder {
        .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestHeadDeadlineHandler(timeout: headTimeout)], idleTimeout: idleTimeout))
    }

    /// Serves `router` on `host:port` (0 picks a free port) while `body` runs with the server's base URL.
    public static func run<Context: RequestContext, T: Sendable>(
        _ router: Router<Context>, host: String = "127.0.0.1", port: Int = 0, idleTimeout: TimeAmount = idleTimeout,
        headTimeout: TimeAmount = headTimeout, logger: Logger? = nil, _ body: @Sendable (URL) async throws -> T
    ) async throws -> T where Context.Source == ApplicationRequestContextSource {
        var quiet = Logger(label: "tvekit.local-server")
        quiet.logLevel = .critical
        let logger = logger ?? quiet
        let (ports, continuation) = AsyncStream.makeStream(of: Int?.self)
        let app = Application(
            router: router, server: http1(idleTimeout: idleTimeout, headTimeout: headTimeout),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                // A server that stops (or never starts: a port in use) ends the wait for its port.
                defer { continuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let bound = await iterator.next() ?? nil, let url = URL(string: "http://\(host):\(bound)") else {
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()  // rethrows why the server did not start
                throw CancellationError()
            }
            do {
                let result = try await body(url)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}
