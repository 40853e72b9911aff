import Foundation
import Hummingbird
import NIOCore
import Testing
import TVESandbox
import TVETestSupport
@testable import TVEServiceProvider

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Local service provider: slow clients")
struct SlowClientTests {
    /// The provider with short limits, served with a short idle timeout.
    static func withShortLimits(idleTimeout: TimeAmount = .seconds(1), _ body: @Sendable (Int) async throws -> Void) async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys, bodyReadTimeout: .seconds(1))
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try await LocalServer.run(router, idleTimeout: idleTimeout) { url in try await body(try #require(url.port)) }
    }

    @Test("silentConnection: a connection that sends nothing is closed after the idle timeout")
    func silentConnection() async throws {
        try await Self.withShortLimits { port in
            let connection = try RawConnection(port: port)
            #expect(await connection.untilClosed(seconds: 20) == "")  // 20 s: room for a loaded machine
        }
    }

    @Test("pausedBody: a connection whose body stops arriving is closed")
    func pausedBody() async throws {
        try await Self.withShortLimits { port in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /reggie/v1/tvekit-sandbox/regcode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 100\r\n\r\ndeviceId=")
            #expect(await connection.untilClosed(seconds: 20) != nil)
        }
    }

    @Test("hugeAnnouncedBody: a Content-Length over the limit closes the connection before the body is read")
    func hugeAnnouncedBody() async throws {
        try await Self.withShortLimits(idleTimeout: .seconds(30)) { port in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /api/v2/tvekit-sandbox/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 900000000\r\n\r\n")
            let started = ContinuousClock.now
            // 20 s of room for a loaded machine (the whole suite runs in parallel); the idle timeout (30 s) would be later.
            #expect(await connection.untilClosed(seconds: 20) != nil)
            #expect(ContinuousClock.now - started < .seconds(25))
        }
    }

    @Test("tinyFieldFlood: a body of many tiny fields is refused before it is decoded, an unknown bearer before it is read")
    func tinyFieldFlood() async throws {
        try await withSandbox { sandbox in
            let flood = Array(repeating: ("a", ""), count: 5000)
            let answer = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "d")] + flood, headers: ["Authorization": sandbox.bearer])
            #expect(answer.status == 400)
            let unknown = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "d")] + flood, headers: ["Authorization": "Bearer nobody"])
            #expect(unknown.status == 401)
        }
    }

    @Test("drippedBody: a GET whose chunked body arrives a byte at a time is cut off at the body-read timeout")
    func drippedBody() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys, bodyReadTimeout: .seconds(1))
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        // The idle timeout is longer than the drip interval: only the body-read timeout can end this.
        try await LocalServer.run(router, idleTimeout: .seconds(30)) { url in
            let connection = try RawConnection(port: try #require(url.port))
            connection.send("GET /api/v2/tvekit-sandbox/configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            let started = ContinuousClock.now
            var closed = false
            for _ in 0..<35 where !closed {
                connection.send("1\r\nx\r\n")
                closed = await connection.closed(afterMilliseconds: 400)
            }
            #expect(closed)
            #expect(ContinuousClock.now - started < .seconds(15))  // the idle timeout (30 s) would be later
        }
    }
}
