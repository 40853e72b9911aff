import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TVECrypto
import TVETokens

/// One-time use for a fleet of verifiers, kept in PostgreSQL: an `AsyncTokenReplayGuard` every verifier of the fleet
/// shares through one database.
///
/// - A key is the SHA-256 of a token's signed bytes (`TokenReplayKey`), stored as `bytea` with the time its record
///   may be forgotten (the token's end of validity, skew included). First use is decided by one statement,
///   `INSERT … ON CONFLICT (key) DO UPDATE … WHERE expired RETURNING`, which PostgreSQL makes atomic across every
///   connection: of concurrent first uses exactly one returns a row. Concurrent checks (single tokens and batches)
///   share statements, at most ``Configuration/maximumConcurrentStatements`` in flight.
/// - Expired keys are deleted in bounded batches (`FOR UPDATE SKIP LOCKED`, so that several instances prune without
///   waiting on each other) every ``Configuration/pruneInterval``; the table holds about one token lifetime of keys.
/// - The schema is created when missing: by ``run()`` at start, or by the first check that finds it missing (also if it is
///   dropped while running).
/// - Every call is bounded by ``Configuration/timeout``, twice at most: once for its wait for a statement slot, once
///   for its statement (client side, the wait for a connection included, whether or not the database answers; server
///   side too, at four fifths of it, by `statement_timeout` and `lock_timeout`). When the database cannot answer in
///   time the decision is `ReplayDecision/unavailable(reason:)` and the verification fails closed
///   (`REPLAY_CHECK_FAILED`). A statement whose answer is lost on the way back may still have committed: that token
///   is then spent, and its retry is `REPLAYED` (never a second `VALID_TOKEN`).
/// - postgres-nio's pool reconnects with back-off; the guard needs no restart after the database comes back.
/// - With several hosts (a primary and its synchronous standbys) statements go to the one that accepts writes; after a
///   failover the guard finds the promoted standby by itself, failing closed in between (``Configuration/hosts``).
/// - On the default table the checks run as prepared statements, parsed and planned once per connection.
///
/// It is a ServiceLifecycle `Service`: run it (in a `ServiceGroup`, next to the server) for as long as it is used.
public final class PostgresReplayGuard: AsyncTokenReplayGuard, Service {
    /// The configuration the guard was made with. Its `description` and mirror leave out the password.
    public let configuration: Configuration
    /// One client (and pool) per host, in the configuration's order.
    let clients: [PostgresClient]
    /// Which host takes the writes (always the only one, with one host).
    let writable: WritableHost
    /// The table is known to exist: the replay check may run as prepared statements (a statement prepared on a connection
    /// while the table is missing would fail on that connection for good).
    let schemaReady = Atomic<Bool>(false)
    /// Whether ``run()`` runs the client (it made it), or the caller does (it gave it).
    private let ownsClients: Bool
    private let clock: any MediaTokenClock
    let logger: Logger
    /// Where statement deadlines are timed when the caller is not on an event loop.
    let timerGroup: any EventLoopGroup
    private let metrics: StoreMetrics
    private let coalescer: WriteCoalescer

    /// A guard with its own connection pool, built from `configuration` (the URL form of `tvekit serve`). Its
    /// statements carry four fifths of the store's timeout on the server side (`statement_timeout`, `lock_timeout`), so
    /// that the server gives up on a statement before the client does.
    /// - Parameters:
    ///   - configuration: where the database is, and the table, timeout, pool, pruning and statement settings.
    ///   - eventLoopGroup: where the pool's connections run: give the verification server's group, so that a request
    ///     waiting for the database stays on its connection's thread; postgres-nio's default group otherwise.
    ///   - clock: the time pruning compares expiries with.
    ///   - metricsFactory: where the store's metrics go (`tvekit_replay_store_seconds`, `…_errors_total`,
    ///     `…_in_flight`, `…_pruned_total`); the global `MetricsSystem` by default.
    ///   - logger: the guard's and the pool's logger (never a bound value or the password).
    /// - Throws: ``ReplayStoreError`` when the configuration is out of range.
    public convenience init(
        configuration: Configuration, eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        clock: any MediaTokenClock = SystemMediaTokenClock(), metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger = Logger(label: "tvekit.replay-store")
    ) throws(ReplayStoreError) {
        try configuration.validate()
        let clients = configuration.hosts.map { host in
            PostgresClient(
                configuration: Self.clientConfiguration(configuration, host: host), eventLoopGroup: eventLoopGroup, backgroundLogger: logger
            )
        }
        try self.init(
            clients: clients, ownsClients: true, timerGroup: eventLoopGroup, configuration: configuration, clock: clock,
            metricsFactory: metricsFactory, logger: logger)
    }

    /// The pool of one host: the store's timeouts on the server side, its pool size, no keep-alive queries.
    private static func clientConfiguration(_ configuration: Configuration, host: Configuration.Host) -> PostgresClient.Configuration {
        var postgres = PostgresClient.Configuration(
            host: host.host, port: host.port, username: configuration.username, password: configuration.password,
            database: configuration.database, tls: Self.tls(configuration.tls))
        // The server stops a statement (and a lock wait) at four fifths of the timeout, so that it gives up before the
        // client does: a statement the client has stopped waiting for does not commit behind its back (which would
        // spend the token of a check answered "unavailable").
        let milliseconds = max(1, Self.milliseconds(configuration.timeout) * 4 / 5)
        postgres.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"), ("lock_timeout", "\(milliseconds)"), ("application_name", "tvekit-replay-guard"),
        ]
        postgres.options.maximumConnections = configuration.maximumConnections
        // The connections the statements use stay open, and no keep-alive query runs: postgres-nio's pool otherwise
        // starts a timer task on the global executor each time a connection goes idle (about once per statement under
        // load), and those tasks cost the server more than the statements. A connection that died silently is found by
        // the next statement's deadline (fail closed once), and the pool replaces it.
        postgres.options.minimumConnections = min(configuration.maximumConcurrentStatements, configuration.maximumConnections - 1)
        postgres.options.keepAliveBehavior = nil
        postgres.options.connectTimeout = max(configuration.timeout, .seconds(2))
        return postgres
    }

    /// A guard on the caller's `PostgresClient` (its TLS, Unix socket, pool and event-loop group as the caller set them),
    /// which the caller runs: ``run()`` then runs only the pruning. Of `configuration`, the table, timeout, pruning and
    /// statement settings apply; its connection fields are not used. The timeout is kept on the client side only: set
    /// `statement_timeout` in the client's startup parameters to bound statements on the server too. One client is one
    /// host: for a primary and its standbys, make the guard from a ``Configuration`` with their ``Configuration/hosts``.
    /// - Throws: ``ReplayStoreError`` when the configuration is out of range.
    public convenience init(
        client: PostgresClient, configuration: Configuration, clock: any MediaTokenClock = SystemMediaTokenClock(),
        metricsFactory: (any MetricsFactory)? = nil, logger: Logger = Logger(label: "tvekit.replay-store")
    ) throws(ReplayStoreError) {
        try self.init(
            clients: [client], ownsClients: false, timerGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration,
            clock: clock, metricsFactory: metricsFactory, logger: logger)
    }

    private init(
        clients: [PostgresClient], ownsClients: Bool, timerGroup: any EventLoopGroup, configuration: Configuration,
        clock: any MediaTokenClock,
        metricsFactory: (any MetricsFactory)?, logger: Logger
    ) throws(ReplayStoreError) {
        try configuration.validate()
        self.configuration = configuration
        self.clients = clients
        self.ownsClients = ownsClients
        writable = WritableHost(initial: clients.count == 1 ? 0 : nil)
        self.timerGroup = timerGroup
        self.clock = clock
        self.logger = logger
        metrics = StoreMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        coalescer = WriteCoalescer(
            maximumInFlight: configuration.maximumConcurrentStatements, maximumBatch: 1024, maximumWait: configuration.timeout)
    }

    /// The table's name in a statement: validated as a plain lower-case identifier (``Configuration``), so it is written
    /// as it is; every value is a bound parameter through postgres-nio's interpolation.
    private var table: String { configuration.table }
    /// The table's name as a quoted identifier (a reserved word such as `user` stays a name).
    private var quotedTable: String { "\"" + configuration.table + "\"" }

    /// Runs the connection pool and the pruning until cancelled or a graceful shutdown. At start it also creates the
    /// table when missing (trying again with back-off while the database cannot be reached), so that the first checks
    /// find it; a check that comes first creates it itself.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            if ownsClients {
                for client in clients { group.addTask { await client.run() } }
            }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    await self.watchHosts()
                }
            }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    await self.createSchemaAtStart()
                }
            }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    await self.pruneForever()
                }
            }
        }
    }

    /// ``createSchema()`` until it succeeds: 100 ms, doubling to 5 s, between tries.
    private func createSchemaAtStart() async {
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await createSchema()
                return
            } catch {
                logger.notice("replay-store table not created yet", metadata: ["reason": "\(Self.describe(error))"])
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(5))
        }
    }

    // MARK: AsyncTokenReplayGuard

    /// Concurrent calls share statements (see ``Configuration/maximumConcurrentStatements``): one commit per group.
    public func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        await recordFirstUses(of: [(key, expiresAt)], now: now).first ?? .unavailable(reason: "no decision")
    }

    /// One statement for the keys of this call and of the calls made meanwhile (concurrent batches share a commit as
    /// single tokens do). A key that appears twice, in one call or in two concurrent ones, is a first use once at most.
    public func recordFirstUses(of keys: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64) async -> [ReplayDecision] {
        await coalescer.submit(keys, now: now) { keys, now in await self.statement(for: keys, now: now) }
    }

    /// One key, one statement.
    private func insert(_ key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
        let quoted = self.quotedTable
        return await measured {
            let keyBytes = Self.buffer(key)
            if self.usesPreparedStatements {
                let rows = try await self.execute(PreparedReplayStatements.InsertOne(key: keyBytes, expiresAt: expiresAt, now: now))
                return [rows.isEmpty ? .replayed : .firstUse]
            }
            let rows = try await self.query(
                """
                INSERT INTO \(unescaped: quoted) (key, expires_at) VALUES (\(keyBytes), \(expiresAt))
                ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE \(unescaped: quoted).expires_at <= \(now)
                RETURNING 1
                """)
            return [rows.isEmpty ? .replayed : .firstUse]
        }[0]
    }

    /// Decides `keys` in one statement (the coalescer's flush).
    private func statement(for keys: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64) async -> [ReplayDecision] {
        if keys.count == 1, let only = keys.first { return [await insert(only.key, expiresAt: only.expiresAt, now: now)] }
        guard !keys.isEmpty else { return [] }
        // A key twice in one statement cannot be upserted twice: send each once, and only its first occurrence can be
        // a first use.
        var firstIndexes: [TokenReplayKey: Int] = [:]
        var uniqueKeys: [(key: TokenReplayKey, expiresAt: Int64)] = []
        for (index, entry) in keys.enumerated() where firstIndexes[entry.key] == nil {
            firstIndexes[entry.key] = index
            uniqueKeys.append(entry)
        }
        let firstIndex = firstIndexes
        let unique = uniqueKeys
        let quoted = self.quotedTable
        let outcome = await measured { () async throws -> [ReplayDecision] in
            let inserted =
                unique.count < Self.packedBatchSize
                ? try await self.insertAsRows(unique, now: now, table: quoted)
                : try await self.insertPacked(unique, now: now, table: quoted)
            return keys.enumerated().map { index, entry in
                firstIndex[entry.key] == index && inserted.contains(entry.key) ? .firstUse : .replayed
            }
        }
        if outcome.count == keys.count { return outcome }
        return Array(repeating: outcome.first ?? .unavailable(reason: "no answer"), count: keys.count)
    }

    // MARK: Pruning

    /// Deletes expired keys (expiry at or before `now`): at most ``Configuration/maximumPruneBatchesPerRound``
    /// statements of ``Configuration/pruneBatchSize`` rows. Returns how many rows went.
    /// - Throws: ``ReplayStoreError`` `.unavailable` when the database does not answer.
    @discardableResult
    public func prune(now: Int64? = nil) async throws(ReplayStoreError) -> Int {
        let now = now ?? clock.nowMilliseconds
        var total = 0
        let (quoted, batchSize) = (self.quotedTable, configuration.pruneBatchSize)
        for _ in 0..<configuration.maximumPruneBatchesPerRound {
            let deleted: Int
            do {
                let rows = try await query(
                    """
                    WITH deleted AS (DELETE FROM \(unescaped: quoted) WHERE key IN
                    (SELECT key FROM \(unescaped: quoted) WHERE expires_at <= \(now) ORDER BY expires_at LIMIT \(batchSize)
                    FOR UPDATE SKIP LOCKED) RETURNING 1)
                    SELECT count(*)::int8 FROM deleted
                    """)
                deleted = Int(try rows.first?.decode(Int64.self) ?? 0)
            } catch {
                throw ReplayStoreError(.unavailable, "pruning failed: \(Self.describe(error))")
            }
            total += deleted
            if deleted < configuration.pruneBatchSize { break }
        }
        metrics.pruned.increment(by: total)
        return total
    }

    /// The number of keys in the table (expired ones not yet pruned included).
    /// - Throws: ``ReplayStoreError`` `.unavailable` when the database does not answer.
    public func count() async throws(ReplayStoreError) -> Int {
        do {
            let quoted = self.quotedTable
            let rows = try await query("SELECT count(*)::int8 FROM \(unescaped: quoted)")
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        } catch let error as ReplayStoreError {
            throw error
        } catch {
            throw ReplayStoreError(.unavailable, Self.describe(error))
        }
    }

    private func pruneForever() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.pruneInterval)
            guard !Task.isCancelled else { return }
            do {
                try await prune()
            } catch {
                logger.warning("replay-store pruning failed", metadata: ["reason": "\(error.reason)"])
            }
        }
    }

    // MARK: Statements

    /// Creates the table and its index when missing.
    public func createSchema() async throws {
        let quoted = self.quotedTable
        let statements: [PostgresQuery] = [
            "CREATE TABLE IF NOT EXISTS \(unescaped: quoted) (key bytea PRIMARY KEY, expires_at bigint NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(unescaped: "\"" + table + "_expires_at\"") ON \(unescaped: quoted) (expires_at)",
        ]
        for statement in statements {
            // Not on a verification's path: 30 s at least. Another instance creating the table at the same moment fails
            // IF NOT EXISTS (23505, 42P07) before the table is visible: the statement runs again, and then finds it.
            var attempt = 0
            while true {
                do {
                    let index = try writableIndex()
                    do {
                        try await withDeadline(max(configuration.timeout, .seconds(30))) {
                            _ = try await self.clients[index].query(statement, logger: self.logger).collect()
                        }
                    } catch {
                        noteFailure(error, host: index)
                        throw error
                    }
                    break
                } catch let error as PSQLError
                    where attempt < 5 && (error.serverInfo?[.sqlState] == "23505" || error.serverInfo?[.sqlState] == "42P07")
                {
                    attempt += 1
                    try await Task.sleep(for: .milliseconds(20 * attempt))
                }
            }
        }
        schemaReady.store(true, ordering: .releasing)
    }

    /// Times a store call and turns any failure into `.unavailable` (fail closed), counted.
    private func measured(_ body: @Sendable () async throws -> [ReplayDecision]) async -> [ReplayDecision] {
        let started = ContinuousClock.now
        metrics.inFlight.increment()
        defer {
            metrics.inFlight.decrement()
            metrics.latency.record(duration: ContinuousClock.now - started)
        }
        do {
            return try await body()
        } catch let error as ReplayStoreError where error.code == .unavailable {  // the deadline passed
            metrics.timeouts.increment()
            return [.unavailable(reason: error.reason)]
        } catch {
            metrics.errors.increment()
            return [.unavailable(reason: "the database cannot be reached or refused the statement (\(Self.describe(error)))")]
        }
    }

    /// A key as the `bytea` the table keeps: the digest's 32 bytes, written from its words (no intermediate array).
    package static func buffer(_ key: TokenReplayKey) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 32)
        write(key, to: &buffer)
        return buffer
    }

    /// Appends a key's 32 bytes.
    static func write(_ key: TokenReplayKey, to buffer: inout ByteBuffer) {
        let (a, b, c, d) = key.words
        buffer.writeInteger(a)
        buffer.writeInteger(b)
        buffer.writeInteger(c)
        buffer.writeInteger(d)
    }

    /// A short description of a database error: its SQLSTATE when the server sent one, a passed deadline's reason.
    static func describe(_ error: any Error) -> String {
        if let error = error as? ReplayStoreError { return error.reason }
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] { return "SQLSTATE \(state)" }
            return "\(error.code)"
        }
        return String(describing: type(of: error))
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    static func tls(_ mode: Configuration.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}

/// What the tests check of the guard's internals (not API).
package enum PostgresReplayGuardTestHook {
    package static func buffer(_ key: TokenReplayKey) -> ByteBuffer { PostgresReplayGuard.buffer(key) }
}
