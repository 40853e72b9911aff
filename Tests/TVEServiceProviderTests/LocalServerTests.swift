import Foundation
import Hummingbird
import Testing
import TVEPassAPI
import TVESandbox
import TVEServiceProvider

@Suite("LocalServer")
struct LocalServerTests {
    @Test("a port in use makes LocalServer.run throw at once instead of waiting for a server that never starts")
    func portInUseThrows() async throws {
        @Sendable func router() -> Router<BasicRequestContext> {
            let router = Router(context: BasicRequestContext.self)
            router.get("/") { _, _ in "ok" }
            return router
        }
        try await LocalServer.run(router()) { url in
            let port = try #require(url.port)
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) {
                try await LocalServer.run(router(), port: port) { _ in Issue.record("a second server started on port \(port)") }
            }
            // A server that never starts would wait for ever; 30 s leaves room for a loaded two-core machine.
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }
}
