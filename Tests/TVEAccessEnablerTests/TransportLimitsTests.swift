import Foundation
import Hummingbird
import NIOCore
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider

/// A hostile service provider: answers that drip a byte at a time or never end.
enum HostileProvider {
    /// Every POST and GET answers 200 and then sends `chunks` chunks of `chunkBytes`, pausing `pause` between them
    /// (giving up after 30 s or once the client has gone). `written` counts the chunks that went out.
    static func router(
        chunks: Int, chunkBytes: Int, pause: Duration, declaredLength: Bool = false,
        written: Locked<Int>
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: chunkBytes)
            let body = ResponseBody(contentLength: declaredLength ? chunks * chunkBytes : nil) { writer in
                let end = ContinuousClock.now + .seconds(30)
                for _ in 0..<chunks where ContinuousClock.now < end {
                    try await writer.write(chunk)
                    written.withLock { $0 += 1 }
                    if pause > .zero { try await Task.sleep(for: pause) }
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        }
        router.get("**", use: handler)
        router.post("**", use: handler)
        return router
    }
}

/// URLSessionTransport against hostile service providers: every call ends in bounded time and memory.
@Suite("URLSessionTransport: deadlines, size limits and cancellation")
struct TransportLimitsTests {
    @Test("slowDripIsCutOff: an answer dripped a byte at a time ends at the transport's deadline, and the next calls still answer")
    func slowDripIsCutOff() async throws {
        let written = Locked(0)
        try await LocalServer.run(HostileProvider.router(chunks: 1000, chunkBytes: 1, pause: .milliseconds(100), written: written)) { url in
            let transport = URLSessionTransport(timeout: 1)
            let started = ContinuousClock.now
            await #expect {
                _ = try await transport.send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("config")))
            } throws: { ($0 as? AccessEnablerError)?.message.contains("within") == true }
            #expect(ContinuousClock.now - started < .seconds(15))

            // Through the delegate API: setRequestor fails in bounded time and the queue moves on.
            let recorder = Recorder()
            let core = AsyncAccessEnabler(
                softwareStatement: "unused", configuration: .init(transport: transport, sleep: SleepRecorder().sleep))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [url])
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(recorder.flow.contains(.requestorComplete(0)))
            #expect(recorder.flow.last == .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"))
            // The drip lasts 100 s; 40 s leaves room for a loaded two-core machine and still shows the calls were cut.
            #expect(ContinuousClock.now - started < .seconds(40))
        }
    }

    @Test("hugeAnswerIsAbandoned: a 64 MiB answer fails once it passes the 4 MiB limit, whether its length is declared or not")
    func hugeAnswerIsAbandoned() async throws {
        for declared in [false, true] {
            let written = Locked(0)
            // 5 ms between chunks: the whole answer takes over 5 s to send, the limit is passed in about 0.35 s (under
            // AddressSanitizer on a loaded machine, 1 ms a chunk let the whole answer go out before the client gave up).
            let router = HostileProvider.router(
                chunks: 1024, chunkBytes: 64 * 1024, pause: .milliseconds(5), declaredLength: declared,
                written: written)
            try await LocalServer.run(router) { url in
                let transport = URLSessionTransport(timeout: 30)
                await #expect {
                    _ = try await transport.send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("config")))
                } throws: { ($0 as? AccessEnablerError)?.message.contains("over 4194304 bytes") == true }
                // The call ended while the server was still sending, and the download stopped with it: the answer was
                // never read, let alone held, whole.
                let atThrow = written.withLock { $0 }
                #expect(atThrow < 1024, "declared length: \(declared)")
                try await Task.sleep(for: .seconds(1))
                let later = written.withLock { $0 }
                #expect(later < 1024 && later - atThrow < 256, "declared length: \(declared): \(atThrow) chunks, then \(later)")
            }
        }
    }

    @Test("a custom limit applies, and an answer within it arrives whole")
    func answerWithinLimit() async throws {
        let written = Locked(0)
        try await LocalServer.run(HostileProvider.router(chunks: 16, chunkBytes: 1024, pause: .zero, written: written)) { url in
            let response = try await URLSessionTransport(timeout: 30, maximumResponseBytes: 16 * 1024)
                .send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("a")))
            #expect(response.status == 200 && response.body.count == 16 * 1024)
            await #expect(throws: AccessEnablerError.self) {
                _ = try await URLSessionTransport(timeout: 5, maximumResponseBytes: 16 * 1024 - 1)
                    .send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("b")))
            }
        }
    }

    @Test("a cancelled call returns at once instead of waiting for the answer")
    func cancellationEndsTheCall() async throws {
        let written = Locked(0)
        try await LocalServer.run(HostileProvider.router(chunks: 1000, chunkBytes: 1, pause: .milliseconds(100), written: written)) { url in
            let started = ContinuousClock.now
            let call = Task {
                try await URLSessionTransport(timeout: 60).send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("c")))
            }
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            await #expect(throws: CancellationError.self) { _ = try await call.value }
            // The call's own deadline is 60 s; 20 s leaves room for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }
}
