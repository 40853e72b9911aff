import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import TVECrypto
import TVEPostgresReplayGuard
import TVETestSupport
import TVETokens
import TVEVerification
import TVEVerificationServer
import Testing

/// The code of the article "Running a verification fleet" (Docs.docc/RunningAVerificationFleet.md), run on the project's
/// PostgreSQL cluster (see PostgresCluster.swift).
@Suite("Article: running a verification fleet")
struct RunningAVerificationFleetArticleTests {
    @Test("the store's URL holds no password: the password comes from the environment, and a URL with one is refused")
    func configurationWithThePasswordFromTheEnvironment() throws {
        let configuration = try PostgresReplayGuard.Configuration(
            url: "postgres://fleet@db.internal:5432/tokens?sslmode=require",
            password: ProcessInfo.processInfo.environment["PGPASSWORD"])
        #expect(configuration.host == "db.internal" && configuration.port == 5432 && configuration.username == "fleet")
        #expect(configuration.database == "tokens" && configuration.tls == .require)
        #expect(configuration.password == ProcessInfo.processInfo.environment["PGPASSWORD"])
        #expect(configuration.table == "tvekit_replay_keys")
        #expect(configuration.redactedURL == "postgres://fleet@db.internal:5432/tokens")
        #expect(throws: ReplayStoreError(.passwordInURL, "")) {
            try PostgresReplayGuard.Configuration(url: "postgres://fleet:secret@db.internal:5432/tokens", password: nil)
        }
    }

    @Test("a primary and its standby: the multi-host URL names both hosts; the probe interval is 250 ms by default")
    func primaryAndStandbyConfiguration() throws {
        var configuration = try PostgresReplayGuard.Configuration(
            url: "postgres://fleet@db-a.internal,db-b.internal/tokens?sslmode=require&target_session_attrs=read-write",
            password: ProcessInfo.processInfo.environment["PGPASSWORD"])
        configuration.hostProbeInterval = .milliseconds(250)  // the default
        let defaults = try PostgresReplayGuard.Configuration(url: "postgres://u@h/d", password: nil)
        #expect(configuration.hostProbeInterval == defaults.hostProbeInterval)
        #expect(configuration.hosts == [.init("db-a.internal"), .init("db-b.internal")])
        #expect(configuration.redactedURL == "postgres://fleet@db-a.internal:5432,db-b.internal:5432/tokens")
    }

    @Test("a fleet member (guard, service, HTTP server in one ServiceGroup) verifies a token once, then answers it replayed")
    func fleetMemberInAServiceGroup() async throws {
        let configuration = try PostgresCluster.configuration()
        let adobeKey = Fixtures.leafKey.publicKey
        let logger = Logger(label: "tvekit.fleet")
        let port = 0
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)

        let group = MultiThreadedEventLoopGroup.singleton  // the server's and the database client's
        let metrics = VerificationMetrics()  // GET /metrics serves the store's metrics too
        let store = try PostgresReplayGuard(
            configuration: configuration, eventLoopGroup: group, metricsFactory: metrics.factory, logger: logger)
        let service = try VerificationService(
            trustedKeys: [adobeKey], requestorIDs: ["fleet"], replayStore: store, metrics: metrics)
        let server = VerificationHTTPServer(
            service: service, port: port, eventLoopGroup: group, onBound: { bound.yield($0) })
        let fleet = ServiceGroup(configuration: .init(services: [store, server], logger: logger))

        let running = Task {
            defer { bound.finish() }
            try await fleet.run()
        }
        do {
            var iterator = ports.makeAsyncIterator()
            let listening = try #require(await iterator.next())
            let token = try freshTokens(1)[0]
            let first = try await verify(token, port: listening)
            let second = try await verify(token, port: listening)
            #expect(first.status == 200 && first.result == "VALID_TOKEN", "first: \(first)")
            #expect(second.status == 200 && second.result == "TOKEN_REPLAYED", "second: \(second)")
            #expect(try await store.count() == 1)
            #expect(metrics.prometheusText().contains("tvekit_replay_store_seconds"))
        } catch {
            await fleet.triggerGracefulShutdown()
            try? await running.value
            throw error
        }
        await fleet.triggerGracefulShutdown()
        try await running.value
    }

    @Test("concurrent checks of one key share statements, and exactly one of them is the first use")
    func concurrentChecksOfOneKey() async throws {
        var configuration = try PostgresCluster.configuration()

        configuration.maximumConnections = 16  // the pool of this instance
        configuration.maximumConcurrentStatements = 2  // statements in flight; checks that arrive meanwhile share the next
        let store = try PostgresReplayGuard(configuration: configuration)

        let key = try TokenReplayKey(signedBytes: Array(UUID().uuidString.utf8))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let expiresAt = now + 60_000
        try await withServices([store]) {
            try await store.createSchema()

            let decisions = await withTaskGroup(of: ReplayDecision.self) { checks in
                for _ in 0..<50 {
                    checks.addTask { await store.recordFirstUse(of: key, expiresAt: expiresAt, now: now) }
                }
                return await checks.reduce(into: [ReplayDecision]()) { $0.append($1) }
            }

            #expect(decisions.count == 50)
            #expect(decisions.filter { $0 == .firstUse }.count == 1)
            #expect(decisions.filter { $0 == .replayed }.count == 49)
        }
    }

    @Test("a database that cannot answer fails the verification closed: 503 REPLAY_CHECK_FAILED, never VALID_TOKEN")
    func unreachableDatabaseFailsClosed() async throws {
        var configuration = try PostgresReplayGuard.Configuration(url: "postgres://fleet@127.0.0.1:1/tokens", password: nil)
        configuration.tls = .disable
        configuration.timeout = .milliseconds(200)
        let store = try PostgresReplayGuard(configuration: configuration)
        let service = try VerificationService(
            trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["fleet"], replayStore: store)
        let token = try freshTokens(1)[0]
        try await withServices([store]) {
            let started = ContinuousClock.now

            let body = #"{"token": "\#(token)", "requestor": "fleet"}"#
            let answer = await service.answer(method: "POST", path: "/verify", body: Array(body.utf8))

            #expect(answer.status == 503)
            #expect(answer.result == "REPLAY_CHECK_FAILED")
            // 200 ms alone; the bound leaves room for a busy suite (without the deadline this would wait for ever).
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test("expired keys are pruned, and count() gives the table's size")
    func pruneAndCount() async throws {
        var configuration = try PostgresCluster.configuration()
        configuration.pruneInterval = .seconds(3600)  // no pruning round of the guard's own during the test
        let store = try PostgresReplayGuard(configuration: configuration)
        try await withServices([store]) {
            try await store.createSchema()
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let keys = try (0..<3).map { index in
                (key: try TokenReplayKey(signedBytes: Array("\(UUID().uuidString) \(index)".utf8)), expiresAt: now - 1000)
            }
            let recorded = await store.recordFirstUses(of: keys, now: now - 2000)
            #expect(recorded.allSatisfy { $0 == .firstUse })

            let deleted = try await store.prune()  // expired keys, in bounded batches
            let remaining = try await store.count()  // keys in the table, expired ones not yet pruned included

            #expect(deleted == 3)
            #expect(remaining == 0)
        }
    }
}
