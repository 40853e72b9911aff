import Foundation
import Logging
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import TVECrypto
import TVEPostgresReplayGuard
import TVETestSupport
import TVETokens
import TVEVerification
import Testing

/// The fleet on a real PostgreSQL (the project's throw-away cluster). Serialized: one test stops the database.
@Suite("A verification fleet on PostgreSQL", .serialized)
struct FleetTests {
    @Test("two servers on one database: the same token sent 100 times at once across both is valid exactly once")
    func twoServersOneDatabaseAcceptATokenOnce() async throws {
        let configuration = try PostgresCluster.configuration()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let (storeA, serverA) = try fleetMember(configuration, ports: continuation)
        let (storeB, serverB) = try fleetMember(configuration, ports: continuation)
        let token = try freshTokens(1)[0]
        let results = try await withServices([storeA, storeB, serverA, serverB]) { () async throws -> [String] in
            var iterator = ports.makeAsyncIterator()
            let a = try #require(await iterator.next())
            let b = try #require(await iterator.next())
            try await storeA.createSchema()
            return try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 { group.addTask { try await verify(token, port: index % 2 == 0 ? a : b).result } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.filter { $0 == "VALID_TOKEN" }.count == 1)
        #expect(results.filter { $0 == "TOKEN_REPLAYED" }.count == 99)
    }

    @Test("the database stopped under load: every answer fails closed, none is valid; after a restart the server recovers by itself")
    func databaseOutageFailsClosedThenRecovers() async throws {
        // A cluster of its own: stopping the project's would fail the tests that run beside this one.
        let configuration = try PostgresCluster.configuration(timeout: .seconds(1), url: try OutageCluster.start())
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let (store, server) = try fleetMember(configuration, ports: continuation)
        let tokens = try freshTokens(80)
        try await withServices([store, server]) {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            func burst(_ slice: ArraySlice<String>) async throws -> [(Int, String)] {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for token in slice { group.addTask { try await verify(token, port: port) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let before = try await burst(tokens[0..<20])
            #expect(before.allSatisfy { $0.1 == "VALID_TOKEN" })
            try OutageCluster.stop()
            do {
                let during = try await burst(tokens[20..<60])
                #expect(during.allSatisfy { $0 == (503, "REPLAY_CHECK_FAILED") }, "\(during.filter { $0.1 != "REPLAY_CHECK_FAILED" })")
                #expect(!during.contains { $0.1 == "VALID_TOKEN" })
            } catch {
                _ = try OutageCluster.start()
                throw error
            }
            _ = try OutageCluster.start()
            // The pool reconnects with back-off: the next tokens verify without restarting anything.
            var recovered = false
            for token in tokens[60..<70] where !recovered {
                recovered = try await verify(token, port: port).result == "VALID_TOKEN"
                if !recovered { try await Task.sleep(for: .seconds(1)) }
            }
            #expect(recovered)
            let after = try await burst(tokens[70..<80])
            #expect(after.allSatisfy { $0.1 == "VALID_TOKEN" })
        }
    }

    @Test("expired keys are pruned in bounded batches: after a long run of unique tokens the table holds about one lifetime")
    func pruningKeepsTheTableBounded() async throws {
        var configuration = try PostgresCluster.configuration()
        configuration.pruneBatchSize = 400
        configuration.maximumPruneBatchesPerRound = 5
        let store = try PostgresReplayGuard(configuration: configuration)
        try await withServices([store]) {
            var now: Int64 = 1_767_225_600_000
            var counts: [Int] = []
            for round in 0..<20 {
                let keys = try (0..<500).map { index in
                    (key: try TokenReplayKey(signedBytes: Array("round \(round) token \(index)".utf8)), expiresAt: now + 60_000)
                }
                let decisions = await store.recordFirstUses(of: keys, now: now)
                #expect(decisions.allSatisfy { $0 == .firstUse })
                now += 30_000
                try await store.prune(now: now)
                counts.append(try await store.count())
            }
            // 10,000 keys went in; a key lives 60 s and a round is 30 s: at most three rounds' keys remain.
            #expect(counts.allSatisfy { $0 <= 1500 }, "\(counts)")
            #expect(try await store.prune(now: now + 120_000) > 0)
            #expect(try await store.count() == 0)
        }
    }

    @Test("a slow database (a held lock) hits the store's timeout and fails closed, not the client's patience")
    func slowDatabaseHitsTheTimeout() async throws {
        let configuration = try PostgresCluster.configuration(timeout: .milliseconds(200))
        let store = try PostgresReplayGuard(configuration: configuration)
        let lockerConfiguration = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 1)
        let locker = PostgresClient(configuration: lockerConfiguration, backgroundLogger: Logger(label: "test"))
        try await withServices([store, locker]) {
            try await store.createSchema()
            let lock = try await TableLock.hold(on: locker, table: configuration.table)
            let key = try TokenReplayKey(signedBytes: Array("slow".utf8))
            let started = ContinuousClock.now
            let decision = await store.recordFirstUse(of: key, expiresAt: Int64.max / 2, now: 0)
            let elapsed = ContinuousClock.now - started
            try await lock.release()
            guard case .unavailable = decision else {
                Issue.record("a locked table gave \(decision), not unavailable")
                return
            }
            // The timeout is 200 ms (0.2 s measured alone); the bound leaves room for a suite whose parallel RSA tests can
            // hold the cooperative pool's threads. A held lock alone would wait for ever.
            #expect(elapsed < .seconds(30), "the timeout is 200 ms; the call took \(elapsed)")
            // Once the lock is gone the key is recorded as a first use (a few tries: the suite keeps the cores busy).
            var after = await store.recordFirstUse(of: key, expiresAt: Int64.max / 2, now: 0)
            for _ in 0..<10 {
                guard case .unavailable = after else { break }
                try await Task.sleep(for: .milliseconds(200))
                after = await store.recordFirstUse(of: key, expiresAt: Int64.max / 2, now: 0)
            }
            #expect(after == .firstUse)
        }
    }

    @Test(
        "a statement the database never answers (a held lock, and no statement_timeout on the caller's client) fails closed at the guard's timeout"
    )
    func unansweredStatementFailsClosedAtTheDeadline() async throws {
        var configuration = try PostgresCluster.configuration()
        configuration.timeout = .milliseconds(300)
        let postgres = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 3)
        let client = PostgresClient(configuration: postgres)
        let store = try PostgresReplayGuard(client: client, configuration: configuration)
        let running = Task { await client.run() }
        defer { running.cancel() }
        try await store.createSchema()
        let lock = try await TableLock.hold(on: client, table: configuration.table)
        // Should the guard wait for the database, the lock goes after 20 s, so that the test ends either way.
        let safety = Task {
            try? await Task.sleep(for: .seconds(20))
            lock.releaseSoon()
        }
        let key = try TokenReplayKey(signedBytes: Array(UUID().uuidString.utf8))
        let started = ContinuousClock.now
        let decision = await store.recordFirstUse(of: key, expiresAt: Int64.max / 2, now: 0)
        let elapsed = ContinuousClock.now - started
        safety.cancel()
        try await lock.release()
        guard case .unavailable = decision else {
            Issue.record("a statement that waits on a lock gave \(decision), not unavailable")
            return
        }
        // 300 ms alone; the bound leaves room for a loaded machine, and is far below the 20 s the lock is held.
        #expect(elapsed < .seconds(10), "the timeout is 300 ms; the call took \(elapsed)")
    }
}

@Suite("PostgreSQL replay guard on the caller's client")
struct InjectedClientTests {
    @Test("a guard on an injected PostgresClient (the caller runs it, on the caller's event loops) keeps one-time use")
    func injectedClient() async throws {
        let configuration = try PostgresCluster.configuration()
        let postgres = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 2)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = PostgresClient(configuration: postgres, eventLoopGroup: group)
        let store = try PostgresReplayGuard(client: client, configuration: configuration)
        let running = Task { await client.run() }
        try await store.createSchema()
        let key = try TokenReplayKey(signedBytes: Array(UUID().uuidString.utf8))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let first = await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now)
        let second = await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now)
        #expect(first == .firstUse && second == .replayed)
        #expect(try await store.count() == 1)
        running.cancel()
        _ = await running.value
        try await group.shutdownGracefully()
    }
}

extension InjectedClientTests {
    @Test("a check on a table that does not exist yet creates it, and is a first use (no run(), so no creation at start)")
    func firstCheckCreatesTheTable() async throws {
        // A generous timeout: creating a table commits twice, which a loaded test machine can make slow.
        let configuration = try PostgresCluster.configuration(timeout: .seconds(30))
        let postgres = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 2)
        let client = PostgresClient(configuration: postgres)
        let store = try PostgresReplayGuard(client: client, configuration: configuration)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let key = try TokenReplayKey(signedBytes: Array(UUID().uuidString.utf8))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now) == .firstUse)
        #expect(await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now) == .replayed)
        #expect(try await store.count() == 1)
    }
}

@Suite("PostgreSQL replay guard: the two batch statements")
struct BatchStatementTests {
    @Test(
        "rejectsReplayInABatch: small batches (a row per first use) and large ones (packed bytea) agree: a key twice in a batch, a key already used, an expired key used again",
        arguments: [3, 40])
    func batchForms(size: Int) async throws {
        let configuration = try PostgresCluster.configuration()
        let store = try PostgresReplayGuard(configuration: configuration)
        try await withServices([store]) {
            try await store.createSchema()
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let run = UUID().uuidString
            let keys = try (0..<size).map { try TokenReplayKey(signedBytes: Array("\(run) \($0)".utf8)) }
            let used = keys[0]
            #expect(await store.recordFirstUse(of: used, expiresAt: now + 60_000, now: now) == .firstUse)
            let expired = keys[1]
            #expect(await store.recordFirstUse(of: expired, expiresAt: now - 1, now: now - 10) == .firstUse)
            // The batch: every key once, then the last key again.
            var batch = keys.map { (key: $0, expiresAt: now + 60_000) }
            batch.append((key: keys[size - 1], expiresAt: now + 60_000))
            let decisions = await store.recordFirstUses(of: batch, now: now)
            #expect(decisions.count == size + 1)
            #expect(decisions[0] == .replayed, "a key used before")
            #expect(decisions[1] == .firstUse, "an expired key is a first use again")
            #expect(decisions[2..<size].allSatisfy { $0 == .firstUse })
            #expect(decisions[size] == .replayed, "the second occurrence in one batch")
            let again = await store.recordFirstUses(of: batch, now: now)
            #expect(again.allSatisfy { $0 == .replayed })
        }
    }

    @Test(
        "rejectsReplayAcrossConcurrentBatches: concurrent batches share statements; a key in all of them is a first use in exactly one"
    )
    func concurrentBatches() async throws {
        var configuration = try PostgresCluster.configuration(timeout: .seconds(10))
        configuration.maximumConcurrentStatements = 1
        let metrics = VerificationMetrics()
        let store = try PostgresReplayGuard(configuration: configuration, metricsFactory: metrics.factory)
        let lockerConfiguration = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 1)
        let locker = PostgresClient(configuration: lockerConfiguration, backgroundLogger: Logger(label: "test"))
        try await withServices([store, locker]) {
            try await store.createSchema()
            // The first statement waits on a held lock, so that the other batches queue behind it and share the next.
            let lock = try await TableLock.hold(on: locker, table: configuration.table)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let run = UUID().uuidString
            let shared = try TokenReplayKey(signedBytes: Array("\(run) shared".utf8))
            let results = await withTaskGroup(of: [ReplayDecision].self) { group in
                for caller in 0..<8 {
                    group.addTask {
                        var keys = (0..<10).compactMap { try? TokenReplayKey(signedBytes: Array("\(run) \(caller) \($0)".utf8)) }
                        keys.insert(shared, at: caller % keys.count)
                        let decisions = await store.recordFirstUses(of: keys.map { (key: $0, expiresAt: now + 60_000) }, now: now)
                        // The shared key's decision first, then the caller's own keys'.
                        let index = caller % 10
                        return [decisions[index]] + decisions.enumerated().filter { $0.offset != index }.map(\.element)
                    }
                }
                try? await Task.sleep(for: .milliseconds(300))
                lock.releaseSoon()
                return await group.reduce(into: []) { $0.append($1) }
            }
            try await lock.release()
            #expect(results.count == 8)
            #expect(results.filter { $0.first == .firstUse }.count == 1, "the shared key: \(results.map { $0.first })")
            #expect(results.allSatisfy { $0.count == 11 && $0.dropFirst().allSatisfy { $0 == .firstUse } })
            // One statement waited on the lock; the batches that queued meanwhile left together.
            let statements = metrics.prometheusText().split(separator: "\n")
                .first { $0.hasPrefix("tvekit_replay_store_seconds_count") }
                .flatMap { $0.split(separator: " ").last }
                .flatMap { Int($0) }
            #expect(statements.map { $0 < 8 } == true, "8 batches took \(String(describing: statements)) statements")
        }
    }
}
