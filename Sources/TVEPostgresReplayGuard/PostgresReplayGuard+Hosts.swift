import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Statements go to the host that takes writes; with several hosts, the guard finds it and finds it again after a
/// failover (libpq's `target_session_attrs=read-write`, kept up while running).
extension PostgresReplayGuard {
    /// The host statements go to now.
    /// - Throws: ``ReplayStoreError`` `.unavailable` when no host is known to take writes (a failover in progress): the
    ///   check fails closed at once rather than waiting for a deadline.
    func writableIndex() throws(ReplayStoreError) -> Int {
        guard let index = writable.current else {
            throw ReplayStoreError(.unavailable, "no database host accepts writes now (a failover in progress?)")
        }
        return index
    }

    /// Whether the replay check runs as prepared statements: on the default table, once the table is known to exist.
    var usesPreparedStatements: Bool {
        configuration.table == PreparedReplayStatements.table && schemaReady.load(ordering: .acquiring)
    }

    /// Runs a statement on the writable host within the deadline and collects its rows; creates the schema and retries
    /// once when the table is missing.
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        do {
            return try await onWritableHost { client in try await client.query(query, logger: self.logger).collect() }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            try await createSchema()
            return try await onWritableHost { client in try await client.query(query, logger: self.logger).collect() }
        }
    }

    /// Runs a prepared statement on the writable host within the deadline and collects its rows. A statement that
    /// fails on the server closes its connection: postgres-nio keeps a failed preparation on its connection for good
    /// (a preparation that met a lock timeout would fail there for ever after), and the pool opens a fresh one.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        do {
            return try await onWritableHost { client in
                try await client.withConnection { connection in
                    do {
                        var rows: [Statement.Row] = []
                        for try await row in try await connection.execute(statement, logger: self.logger) { rows.append(row) }
                        return rows
                    } catch let error as PSQLError where error.serverInfo != nil {
                        try? await connection.close()
                        throw error
                    }
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            schemaReady.store(false, ordering: .releasing)
            try await createSchema()
            throw error  // this check fails closed; the next ones find the table
        }
    }

    /// Runs `body` with the writable host's client, within the store's deadline; notes a failure that says the host is
    /// lost (or slow).
    func onWritableHost<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let index = try writableIndex()
        let client = clients[index]
        do {
            return try await withDeadline { try await body(client) }
        } catch {
            noteFailure(error, host: index)
            throw error
        }
    }

    /// With several hosts: a broken connection, a refused connection or a refused write (the host is read-only: a
    /// standby, or a primary demoted) forgets the host, and a passed deadline has it checked now.
    func noteFailure(_ error: any Error, host index: Int) {
        guard clients.count > 1, !(error is CancellationError) else { return }
        if let error = error as? ReplayStoreError {
            if error.code == .unavailable { writable.suspect() }
            return
        }
        guard let error = error as? PSQLError else { return }
        if let state = error.serverInfo?[.sqlState] {
            // 25006 read_only_sql_transaction, 08… connection exceptions, 57P0… the server is shutting down or starting.
            guard state == "25006" || state.hasPrefix("08") || state.hasPrefix("57P") else { return }
        }
        logger.warning(
            "replay-store host lost", metadata: ["host": "\(configuration.hosts[index])", "reason": "\(Self.describe(error))"])
        writable.lost(index)
    }

    /// With several hosts, until cancelled: asks them which takes writes, every ``Configuration/hostProbeInterval`` while
    /// none is known, ten times as seldom once one is, and at once when a statement lost it.
    func watchHosts() async {
        guard clients.count > 1 else { return }
        while !Task.isCancelled {
            let found = await probeHosts()
            let (changed, previous) = writable.found(found)
            if changed {
                if let found {
                    logger.notice(
                        "replay store writes to \(configuration.hosts[found])",
                        metadata: previous.map { ["previous": "\(configuration.hosts[$0])"] } ?? [:])
                } else {
                    logger.warning("no replay-store host accepts writes: checks fail closed until one does")
                }
            }
            await writable.wait(atMost: found == nil ? configuration.hostProbeInterval : configuration.hostProbeInterval * 10)
        }
    }

    /// Asks every host at once; the first to say it takes writes is the answer, nil when none does within the probe's
    /// deadline (the store's timeout, at least 1 s).
    func probeHosts() async -> Int? {
        await withTaskGroup(of: Int?.self) { group in
            for index in clients.indices {
                group.addTask { await self.acceptsWrites(index) ? index : nil }
            }
            for await answer in group {
                if let answer {
                    group.cancelAll()
                    return answer
                }
            }
            return nil
        }
    }

    /// Whether host `index` takes writes: `transaction_read_only` is off (what libpq asks for `read-write`).
    private func acceptsWrites(_ index: Int) async -> Bool {
        let client = clients[index]
        do {
            let rows = try await withDeadline(max(configuration.timeout, .seconds(1))) {
                try await client.query("SELECT pg_catalog.current_setting('transaction_read_only')", logger: self.logger).collect()
            }
            return try rows.first?.decode(String.self) == "off"
        } catch {
            return false
        }
    }
}
