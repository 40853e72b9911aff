import Foundation
import Logging
import PostgresNIO
import TVEPostgresReplayGuard
import TVETokens
import Testing

/// The replay check as prepared statements: on the default table (`tvekit_replay_keys`), which these tests share with the
/// CLI's fleet tests (their keys are their own: digests of unique texts).
@Suite("PostgreSQL replay guard: prepared statements on the default table", .serialized)
struct PreparedStatementTests {
    static func configuration(timeout: Duration) throws -> PostgresReplayGuard.Configuration {
        var configuration = try PostgresCluster.configuration(timeout: timeout)
        configuration.table = "tvekit_replay_keys"
        return configuration
    }

    @Test(
        "rejectsReplayWithPreparedStatements: a single key, a small batch and a packed batch keep one-time use when prepared",
        arguments: [1, 3, 40])
    func preparedForms(size: Int) async throws {
        let store = try PostgresReplayGuard(configuration: try Self.configuration(timeout: .seconds(30)))
        try await withServices([store]) {
            try await store.createSchema()
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let run = UUID().uuidString
            let keys = try (0..<size).map { try TokenReplayKey(signedBytes: Array("prepared \(run) \($0)".utf8)) }
            // Twice each, once after the other: the prepared statement is parsed once per connection, then reused.
            for _ in 0..<2 {
                let used = try TokenReplayKey(signedBytes: Array("prepared \(run) used \(UUID())".utf8))
                #expect(await store.recordFirstUse(of: used, expiresAt: now + 60_000, now: now) == .firstUse)
                #expect(await store.recordFirstUse(of: used, expiresAt: now + 60_000, now: now) == .replayed)
            }
            guard size > 1 else { return }
            var batch = keys.map { (key: $0, expiresAt: now + 60_000) }
            batch.append((key: keys[0], expiresAt: now + 60_000))
            let decisions = await store.recordFirstUses(of: batch, now: now)
            #expect(decisions.count == size + 1)
            #expect(decisions[0..<size].allSatisfy { $0 == .firstUse })
            #expect(decisions[size] == .replayed, "the second occurrence in one batch")
            #expect(await store.recordFirstUses(of: batch, now: now).allSatisfy { $0 == .replayed })
        }
    }

    @Test(
        "aPreparationThatMetALockDoesNotPoisonItsConnection: a check whose statement was being prepared while the table was locked fails closed, and the next checks succeed"
    )
    func failedPreparationRecovers() async throws {
        var configuration = try Self.configuration(timeout: .milliseconds(500))
        configuration.maximumConnections = 2
        configuration.maximumConcurrentStatements = 1
        let store = try PostgresReplayGuard(configuration: configuration)
        let lockerConfiguration = PostgresCluster.clientConfiguration(for: configuration, maximumConnections: 1)
        let locker = PostgresClient(configuration: lockerConfiguration, backgroundLogger: Logger(label: "test"))
        try await withServices([store, locker]) {
            try await store.createSchema()
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let key = try TokenReplayKey(signedBytes: Array("prepared lock \(UUID())".utf8))
            // The first prepared statement of this guard's connections meets the lock: its preparation fails (lock timeout).
            let lock = try await TableLock.hold(on: locker, table: configuration.table)
            let locked = await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now)
            try await lock.release()
            guard case .unavailable = locked else {
                Issue.record("a locked table gave \(locked), not unavailable")
                return
            }
            // postgres-nio keeps a failed preparation on its connection; the guard closes that connection, so the key is
            // recorded once the lock is gone (a few tries: the CLI's fleet test may lock the same table for a moment).
            var after = await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now)
            for _ in 0..<40 {
                guard case .unavailable = after else { break }
                try await Task.sleep(for: .milliseconds(200))
                after = await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now)
            }
            #expect(after == .firstUse)
            #expect(await store.recordFirstUse(of: key, expiresAt: now + 60_000, now: now) == .replayed)
        }
    }
}
