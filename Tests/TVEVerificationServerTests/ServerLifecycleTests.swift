import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TVEConcurrency
import TVECrypto
import TVETestSupport
import TVETokens
import TVEVerification
import TVEVerificationServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A replay store that answers after a delay (a slow database), and says whether its answer came on the thread of
/// the request's event loop.
final class SlowStore: AsyncTokenReplayGuard {
    let delay: Duration
    let calls = Locked(0)
    init(delay: Duration) { self.delay = delay }
    func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        calls.withLock { $0 += 1 }
        try? await Task.sleep(for: delay)
        return .firstUse
    }
}

/// The NIO verification server's life: the caller's event-loop group, a graceful stop with answers in flight, early 413,
/// slow clients, the bearer secret.
@Suite("Verification server: lifecycle, slow clients, bearer secret")
struct ServerLifecycleTests {
    static let now: Int64 = 1_767_225_600_000

    static func token() throws -> String {
        try MediaTokenIssuer(privateKey: Fixtures.leafKey, clock: FixedMediaTokenClock(milliseconds: now))
            .issue(requestorID: "tvekit-test", resourceID: "res", mvpdId: "M", issueTime: now - 1000).serialized
    }

    static func service(store: (any AsyncTokenReplayGuard)? = nil) throws -> VerificationService {
        let clock = FixedMediaTokenClock(milliseconds: now)
        if let store {
            return try VerificationService(
                trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["tvekit-test"], clock: clock, replayStore: store)
        }
        return try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["tvekit-test"], clock: clock)
    }

    /// A server on `store` and the caller's `group`, running in a ServiceGroup; its port once it listens.
    static func start(store: any AsyncTokenReplayGuard, group: any EventLoopGroup) async throws -> (
        ServiceGroup, Task<Void, any Error>, Int
    ) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = VerificationHTTPServer(
            service: try service(store: store), eventLoopGroup: group, onBound: { continuation.yield($0) })
        let services = ServiceGroup(configuration: .init(services: [server], logger: Logger(label: "test")))
        let running = Task { try await services.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return (services, running, port)
    }

    @Test(
        "shutdownWithAnswersInFlight: a graceful stop while the store is answering lets every answer out, then returns; the caller's group lives on"
    )
    func shutdownWithAnswersInFlight() async throws {
        let store = SlowStore(delay: .milliseconds(600))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (services, running, port) = try await Self.start(store: store, group: group)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let body = try JSONSerialization.data(withJSONObject: ["token": try Self.token(), "requestor": "tvekit-test"])
        let requests = (0..<4).map { _ in
            Task { () async throws -> (Int, String?) in
                let (status, answer) = try await post(url, body)
                return (status, answer["result"] as? String)
            }
        }
        #expect(await eventually { store.calls.withLock { $0 } == 4 })
        await services.triggerGracefulShutdown()
        for request in requests {
            let (status, result) = try await request.value
            #expect(status == 200)
            #expect(result == "VALID_TOKEN")
        }
        try await running.value
        // The group is the caller's: still running after the server stopped.
        let answer = try await group.next().submit { 42 }.get()
        #expect(answer == 42)
        try await group.shutdownGracefully()
    }

    @Test("a request waiting for the store resumes on its connection's event loop (one thread per request)")
    func storeAnswerResumesOnTheLoop() async throws {
        final class ThreadRecordingStore: AsyncTokenReplayGuard {
            let onLoopThread = Locked<[Bool]>([])
            let group: any EventLoopGroup
            init(group: any EventLoopGroup) { self.group = group }
            func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
                let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
                try? await Task.sleep(for: .milliseconds(5))
                let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
                onLoopThread.withLock { $0.append(before && after) }
                return .firstUse
            }
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let store = ThreadRecordingStore(group: group)
        let (services, running, port) = try await Self.start(store: store, group: group)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let (status, _) = try await post(
            url, try JSONSerialization.data(withJSONObject: ["token": try Self.token(), "requestor": "tvekit-test"]))
        #expect(status == 200)
        #expect(store.onLoopThread.withLock { $0 } == [true])
        await services.triggerGracefulShutdown()
        try await running.value
        try await group.shutdownGracefully()
    }

    @Test(
        "pipelinedRequests: an answer from the store, a health check and a body split across reads, in one burst: three answers, the body whole"
    )
    func pipelinedRequests() async throws {
        let store = SlowStore(delay: .milliseconds(100))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (services, running, port) = try await Self.start(store: store, group: group)
        let token = try Self.token()
        let first = #"{"token":"\#(token)","requestor":"tvekit-test"}"#
        let third = #"[{"token":"\#(token)","requestor":"tvekit-test"},{"token":"x","requestor":"tvekit-test"}]"#
        let split = third.utf8.count / 2
        let connection = try RawConnection(port: port)
        connection.send(
            "POST /verify HTTP/1.1\r\nHost: x\r\nContent-Length: \(first.utf8.count)\r\n\r\n\(first)"
                + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /verify HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(third.utf8.count)\r\n\r\n"
                + String(third.prefix(split)))
        try await Task.sleep(for: .milliseconds(30))
        connection.send(String(third.dropFirst(split)))
        let answers = await connection.untilClosed(seconds: 20) ?? ""
        #expect(answers.components(separatedBy: "HTTP/1.1 200").count == 4, "\(answers)")
        // The first request and the batch's first item (this store never says "replayed"): the batch was read whole.
        #expect(answers.components(separatedBy: #""result":"VALID_TOKEN""#).count == 3)
        #expect(answers.contains(#"[{"#) && answers.contains("INVALID_TOKEN_FORMAT"))
        await services.triggerGracefulShutdown()
        try await running.value
        try await group.shutdownGracefully()
    }

    @Test(
        "pipelineFlood: 300 requests pipelined behind answers that wait for the store (past the 64 KiB the connection keeps, so reads are held and resumed) are all answered, in order"
    )
    func pipelineFlood() async throws {
        let store = SlowStore(delay: .milliseconds(1))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (services, running, port) = try await Self.start(store: store, group: group)
        let token = try Self.token()
        // Every third request a malformed token, so that the answers' order shows.
        let bodies = (0..<300).map { index in
            #"{"token":"\#(index % 3 == 0 ? "x" : token)","requestor":"tvekit-test"}"#
        }
        let requests = bodies.enumerated().map { index, body in
            "POST /verify?n=\(index) HTTP/1.1\r\nHost: x\r\n\(index == 299 ? "Connection: close\r\n" : "")"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }.joined()
        #expect(requests.utf8.count > 2 * 64 * 1024)
        let connection = try RawConnection(port: port)
        DispatchQueue.global().async { connection.send(requests) }  // a blocking send, off the cooperative pool
        let answers = await connection.untilClosed(seconds: 60) ?? ""
        #expect(answers.components(separatedBy: "HTTP/1.1 200").count == 301, "\(answers.prefix(300))")
        let results = answers.components(separatedBy: #""result":""#).dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(results == (0..<300).map { $0 % 3 == 0 ? "INVALID_TOKEN_FORMAT" : "VALID_TOKEN" })
        #expect(store.calls.withLock { $0 } == 200)
        await services.triggerGracefulShutdown()
        try await running.value
        try await group.shutdownGracefully()
    }

    @Test("earlyTooLarge: a head declaring a body over 1 MiB is answered 413 at once and the connection closes, before any body byte")
    func earlyTooLarge() async throws {
        try await withRunningNIOService(try Self.service(), timeouts: .init(idle: .seconds(30), body: .seconds(30))) { url in
            let connection = try RawConnection(port: try #require(url.port))
            connection.send("POST /verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000000\r\n\r\n")
            let started = ContinuousClock.now
            // Generous bounds for a loaded machine (the whole suite runs in parallel); the body timeout (30 s) is later.
            let answer = await connection.untilClosed(seconds: 20)
            #expect(answer?.hasPrefix("HTTP/1.1 413") == true, "\(answer ?? "still open")")
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }

    @Test("slowClients: a connection that sends nothing, and one whose body pauses, are closed after their timeouts")
    func slowClients() async throws {
        try await withRunningNIOService(try Self.service(), timeouts: .init(idle: .milliseconds(400), body: .milliseconds(400))) { url in
            let port = try #require(url.port)
            let silent = try RawConnection(port: port)
            #expect(await silent.untilClosed(seconds: 20) == "")  // 20 s: room for a loaded machine
            let paused = try RawConnection(port: port)
            paused.send("POST /verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"tok")
            #expect(await paused.untilClosed(seconds: 20) == "")
            // A client that keeps to its timeouts is answered.
            let (status, _) = try await post(url, Data(#"{"token":"x","requestor":"tvekit-test"}"#.utf8))
            #expect(status == 200)
        }
    }

    @Test("headDrip: a request head sent a byte every 400 ms is closed at the head deadline, though each byte keeps the idle timeout away")
    func headDrip() async throws {
        let timeouts = VerificationHTTPServer.Timeouts(idle: .seconds(60), head: .seconds(1), body: .seconds(60))
        try await withRunningNIOService(try Self.service(), timeouts: timeouts) { url in
            let port = try #require(url.port)
            let dripping = try RawConnection(port: port)
            let head = "POST /verify HTTP/1.1\r\nHost: x\r\nX-Long: " + String(repeating: "a", count: 200)
            var closed = false
            // 50 bytes, 20 s and more: room for a loaded machine.
            for byte in head.prefix(50) where !closed {
                dripping.send(String(byte))
                closed = await dripping.closed(afterMilliseconds: 400)
            }
            #expect(closed)
            // Between requests no head is due: a keep-alive connection silent for three head deadlines is still served.
            let keptAlive = try RawConnection(port: port)
            keptAlive.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await keptAlive.closed(afterMilliseconds: 3000) == false)
            keptAlive.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(await keptAlive.untilClosed(seconds: 20)?.hasPrefix("HTTP/1.1 200") == true)
            // A head split over reads arrives whole in time and is answered. Both halves leave from one thread 100 ms
            // apart, so that a loaded machine's busy cooperative pool cannot stretch the gap past the head deadline.
            let split = try RawConnection(port: port)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    split.send("GET /health HT")
                    usleep(100_000)
                    split.send("TP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    continuation.resume()
                }
            }
            #expect(await split.untilClosed(seconds: 20)?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    @Test("idleTimeoutCountsFromTheLastRead: a keep-alive connection that keeps sending outlives the idle timeout; once silent it closes")
    func idleTimeoutCountsFromTheLastRead() async throws {
        try await withRunningNIOService(try Self.service(), timeouts: .init(idle: .milliseconds(600), body: .seconds(5))) { url in
            let connection = try RawConnection(port: try #require(url.port))
            // 1.5 s of requests, one every 150 ms (three idle timeouts long, never one apart), sent from one thread so
            // that a loaded machine cannot stretch the gaps between them.
            let openThroughout = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var open = true
                    for _ in 0..<10 where open {
                        connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                        open = !connection.isClosed(afterMilliseconds: 150)
                    }
                    continuation.resume(returning: open)
                }
            }
            #expect(openThroughout)
            #expect(await connection.closed(afterMilliseconds: 20000) == true)  // room for a loaded machine
        }
    }

    @Test("bearerSecret: /verify and /metrics need the secret (401 with a Bearer challenge otherwise), /health does not")
    func bearerSecret() async throws {
        let secret = try BearerSecret("a-shared-secret-of-32-characters")
        try await withRunningNIOService(try Self.service(), bearerSecret: secret) { url in
            func call(_ path: String, method: String = "GET", authorization: String? = nil) async throws -> (Int, String?) {
                var request = URLRequest(url: url.appendingPathComponent(path))
                request.httpMethod = method
                if method == "POST" { request.httpBody = Data(#"{"token":"x","requestor":"tvekit-test"}"#.utf8) }
                if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
                let (_, response) = try await URLSession.shared.data(for: request)
                let http = response as? HTTPURLResponse
                return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "WWW-Authenticate"))
            }
            let anonymous = try await call("verify", method: "POST")
            let wrong = try await call("verify", method: "POST", authorization: "Bearer wrong-secret-of-some-length")
            let right = try await call("verify", method: "POST", authorization: "Bearer a-shared-secret-of-32-characters")
            let metrics = try await call("metrics")
            let metricsWithSecret = try await call("metrics", authorization: "bearer a-shared-secret-of-32-characters")
            let health = try await call("health")
            #expect(anonymous.0 == 401 && anonymous.1 == "Bearer")
            #expect(wrong.0 == 401 && right.0 == 200)
            #expect(metrics.0 == 401 && metricsWithSecret.0 == 200 && health.0 == 200)
        }
        #expect(throws: VerificationServerError.self) { try BearerSecret("short") }
        #expect(throws: VerificationServerError.self) { try BearerSecret("has a space in it, sixteen+") }
    }
}

/// Polls `condition` for up to 5 s.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
