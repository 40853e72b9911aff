import Foundation
import Hummingbird
import NIOCore
import Testing
import TVECrypto
import TVESandbox
import TVETestSupport
import TVEVerification
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
        try await LocalServer.run(router, idleTimeout: .seconds(60)) { url in
            let connection = try RawConnection(port: try #require(url.port))
            connection.send("GET /api/v2/tvekit-sandbox/configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            let started = ContinuousClock.now
            var closed = false
            for _ in 0..<75 where !closed {
                connection.send("1\r\nx\r\n")
                closed = await connection.closed(afterMilliseconds: 400)
            }
            #expect(closed)
            #expect(ContinuousClock.now - started < .seconds(40))  // the idle timeout (60 s) would be later
        }
    }

    /// Sends `pieces` one at a time, 400 ms apart (the last one again and again), until the server closes the connection
    /// or 50 pieces (20 s and more: room for a loaded machine) have gone: whether it closed.
    static func drip(_ connection: RawConnection, _ pieces: [String]) async -> Bool {
        for index in 0..<50 {
            connection.send(pieces[min(index, pieces.count - 1)])
            if await connection.closed(afterMilliseconds: 400) { return true }
        }
        return false
    }

    @Test("headDrip: a request head sent a byte at a time is closed at the head deadline; a silent keep-alive connection is not")
    func headDrip() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        // The idle timeout (60 s) is far later than the drip: only the head deadline can end it.
        try await LocalServer.run(router, idleTimeout: .seconds(60), headTimeout: .seconds(1)) { url in
            let port = try #require(url.port)
            let dripping = try RawConnection(port: port)
            let head =
                "GET /api/v2/tvekit-sandbox/configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + String(repeating: "a", count: 200)
            #expect(await Self.drip(dripping, head.map(String.init)))
            // Between requests no head is due: a keep-alive connection silent for three head deadlines is still served.
            let keptAlive = try RawConnection(port: port)
            keptAlive.send("GET /api/v2/tvekit-sandbox/configuration HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await keptAlive.closed(afterMilliseconds: 3000) == false)
            keptAlive.send("GET /api/v2/tvekit-sandbox/configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(await keptAlive.untilClosed(seconds: 20)?.hasPrefix("HTTP/1.1 401") == true)
        }
    }

    @Test(
        "bodyDripOnEveryRoute: a body dripped or too large for the verification routes, or for a path that is no route, is cut off"
    )
    func bodyDripOnEveryRoute() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys, bodyReadTimeout: .seconds(1))
        // As `tvekit serve` builds its router: the provider, then the verification routes.
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try VerificationService(trustedKeys: [keys.mediaTokenKey.publicKey], requestorIDs: ["tvekit-sandbox"]).addRoutes(to: router)
        // The idle timeout (60 s) is far later than the drip: only the body deadline can end it.
        try await LocalServer.run(router, idleTimeout: .seconds(60)) { url in
            let port = try #require(url.port)
            for target in ["POST /verify", "GET /health", "GET /metrics", "POST /no/such/route", "TRACE /api/v1/checkauthn"] {
                let dripping = try RawConnection(port: port)
                dripping.send("\(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
                #expect(await Self.drip(dripping, ["1\r\nx\r\n"]), "\(target)")
                let huge = try RawConnection(port: port)
                huge.send("\(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 900000000\r\n\r\n")
                #expect(await huge.untilClosed(seconds: 20) != nil, "\(target)")
            }
        }
    }

    @Test("slowAnswerCutByTheBodyDeadline: a handler slower than the body deadline still answers: the deadline covers the body only")
    func slowAnswerCutByTheBodyDeadline() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys, bodyReadTimeout: .seconds(1))
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        router.post("slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(3))
            return "answered"
        }
        try await LocalServer.run(router, idleTimeout: .seconds(60)) { url in
            let connection = try RawConnection(port: try #require(url.port))
            connection.send("POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
            let answer = await connection.untilClosed(seconds: 30)
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "still open")")
            #expect(answer?.hasSuffix("answered") == true)
        }
    }
}
