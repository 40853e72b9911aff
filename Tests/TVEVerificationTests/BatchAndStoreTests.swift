import Foundation
import TVEConcurrency
import TVECrypto
import TVETestSupport
import TVETokens
import TVEVerification
import Testing

/// A replay store that cannot answer.
struct DownStore: AsyncTokenReplayGuard {
    func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        .unavailable(reason: "down")
    }
}

/// An in-memory store behind the asynchronous interface, counting its calls.
final class CountingStore: AsyncTokenReplayGuard {
    let base = AsyncReplayGuardAdapter(InMemoryTokenReplayGuard())
    let calls = Locked(0)
    func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        calls.withLock { $0 += 1 }
        return await base.recordFirstUse(of: key, expiresAt: expiresAt, now: now)
    }
    func recordFirstUses(of keys: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64) async -> [ReplayDecision] {
        calls.withLock { $0 += 1 }
        var decisions: [ReplayDecision] = []
        for (key, expiresAt) in keys { decisions.append(await base.recordFirstUse(of: key, expiresAt: expiresAt, now: now)) }
        return decisions
    }
}

@Suite("Verification service: batches and asynchronous replay stores")
struct BatchAndStoreTests {
    static let now: Int64 = 1_767_225_600_000
    static let clock = FixedMediaTokenClock(milliseconds: now)

    static func tokens(_ count: Int) throws -> [String] {
        let issuer = MediaTokenIssuer(privateKey: Fixtures.leafKey, clock: clock)
        return try (0..<count).map { _ in try issuer.issue(requestorID: "r", resourceID: "res", mvpdId: "M").serialized }
    }

    static func request(_ token: String) -> String { #"{"token":"\#(token)","requestor":"r"}"# }

    func results(_ body: String) throws -> [String] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]])
        return array.map { ($0["result"] as? String) ?? ($0["error"] as? String) ?? "?" }
    }

    @Test("an array answers an array in order, each as alone; a repeated token in one batch is valid once", arguments: [false, true])
    func array(asynchronous: Bool) async throws {
        let store = CountingStore()
        let service =
            asynchronous
            ? try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["r"], clock: Self.clock, replayStore: store)
            : try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["r"], clock: Self.clock)
        let tokens = try Self.tokens(3)
        let body =
            "["
            + [
                Self.request(tokens[0]), Self.request(tokens[1]), Self.request(tokens[0]), #"{"token":1}"#,
                #"{"token":"x","requestor":"r"}"#,
                Self.request(tokens[2]),
            ].joined(separator: ",") + "]"
        let answer = await service.answer(method: "POST", path: "/verify", body: Array(body.utf8))
        #expect(answer.status == 200 && answer.contentType == "application/json")
        #expect(
            try results(answer.body) == [
                "VALID_TOKEN", "VALID_TOKEN", "TOKEN_REPLAYED", "malformedRequest", "INVALID_TOKEN_FORMAT", "VALID_TOKEN",
            ])
        if asynchronous { #expect(store.calls.withLock { $0 } == 1, "a batch takes one round trip to the store") }
    }

    @Test("JSON lines answer JSON lines, in order")
    func lines() async throws {
        let service = try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["r"], clock: Self.clock)
        let tokens = try Self.tokens(2)
        let body = Self.request(tokens[0]) + "\n" + Self.request(tokens[1]) + "\n\n" + Self.request(tokens[0]) + "\n"
        let answer = await service.answer(method: "POST", path: "/verify", body: Array(body.utf8))
        #expect(answer.contentType == "application/x-ndjson")
        let lines = answer.body.split(separator: "\n").map { String($0) }
        #expect(lines.count == 3)
        #expect(try lines.map { try results("[" + $0 + "]")[0] } == ["VALID_TOKEN", "VALID_TOKEN", "TOKEN_REPLAYED"])
    }

    @Test("rejectsOversizedBatch: more than the batch limit, or an empty batch, is a 400 before any verification")
    func rejectsOversizedBatch() async throws {
        let service = try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["r"], clock: Self.clock)
        let many =
            "["
            + Array(repeating: #"{"token":"x","requestor":"r"}"#, count: VerificationService.maximumBatchCount + 1)
            .joined(separator: ",") + "]"
        #expect(await service.answer(method: "POST", path: "/verify", body: Array(many.utf8)).status == 400)
        #expect(await service.answer(method: "POST", path: "/verify", body: Array("[]".utf8)).status == 400)
        #expect(await service.answer(method: "POST", path: "/verify", body: Array("{} {}".utf8)).status == 400)
    }

    @Test("failsClosedWhenStoreIsDown: a store that cannot answer gives REPLAY_CHECK_FAILED with 503, never VALID_TOKEN")
    func failsClosedWhenStoreIsDown() async throws {
        let service = try VerificationService(
            trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["r"], clock: Self.clock, replayStore: DownStore())
        let tokens = try Self.tokens(2)
        let single = await service.answer(method: "POST", path: "/verify", body: Array(Self.request(tokens[0]).utf8))
        #expect(single.status == 503)
        #expect(single.body.contains("REPLAY_CHECK_FAILED") && !single.body.contains("VALID_TOKEN"))
        let batch = await service.answer(method: "POST", path: "/verify", body: Array(("[" + Self.request(tokens[1]) + "]").utf8))
        #expect(try results(batch.body) == ["REPLAY_CHECK_FAILED"])
        // A token that fails an earlier check keeps its own result: the store is not asked.
        let forged = await service.answer(method: "POST", path: "/verify", body: Array(#"{"token":"x","requestor":"r"}"#.utf8))
        #expect(forged.body.contains("INVALID_TOKEN_FORMAT"))
        // The synchronous entry point cannot wait for the store: it fails closed too.
        let sync = Array(Self.request(tokens[1]).utf8).withUnsafeBytes { service.answer(method: "POST", path: "/verify", body: $0) }
        #expect(sync.status == 503)
        #expect(service.metrics.prometheusText().contains(#"tvekit_verifications_total{result="REPLAY_CHECK_FAILED"} 3"#))
    }
}
