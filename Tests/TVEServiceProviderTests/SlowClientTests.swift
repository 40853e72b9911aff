import Foundation
import Hummingbird
import NIOCore
import Testing
import TVESandbox
@testable import TVEServiceProvider

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to loopback that sends what the test says and waits for the server.
/// Its reads block a thread, so the async forms run them off Swift's cooperative pool (which the server under test
/// needs: on two cores, a blocked pool thread starves it).
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(descriptor >= 0 && connected == 0)
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// ``isClosed(afterMilliseconds:)`` on a thread of its own.
    func closed(afterMilliseconds milliseconds: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.isClosed(afterMilliseconds: milliseconds)) }
        }
    }

    /// ``readUntilClosed(seconds:)`` on a thread of its own.
    func untilClosed(seconds: Int) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.readUntilClosed(seconds: seconds)) }
        }
    }

    /// Whether the server has closed the connection within `milliseconds` (what it sent is read and dropped).
    func isClosed(afterMilliseconds milliseconds: Int) -> Bool {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    /// Everything the server sends until it closes the connection, or nil when it is still open after `seconds`.
    func readUntilClosed(seconds: Int) -> String? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            if count < 0 { return nil }
            received += buffer[0..<count]
        }
    }
}

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
            #expect(await connection.untilClosed(seconds: 5) == "")
        }
    }

    @Test("pausedBody: a connection whose body stops arriving is closed")
    func pausedBody() async throws {
        try await Self.withShortLimits { port in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /reggie/v1/tvekit-sandbox/regcode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 100\r\n\r\ndeviceId=")
            #expect(await connection.untilClosed(seconds: 5) != nil)
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
            #expect(await connection.untilClosed(seconds: 5) != nil)
            #expect(ContinuousClock.now - started < .seconds(15))  // the idle timeout (30 s) would be later
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
