import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TVECrypto
import TVEPostgresReplayGuard
import TVETestSupport
import TVETokens
import TVEVerification
import TVEVerificationServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The project's throw-away PostgreSQL cluster (scripts/postgres.sh): `make test` starts it and stops it after the
/// suite; a test run on its own starts it (installing PostgreSQL from apt when missing) and, if it was not running,
/// has it stopped when the test process ends. No cluster is a failure.
enum PostgresCluster {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `scripts/postgres.sh COMMAND` and returns its output.
    @discardableResult
    static func script(_ arguments: String...) throws -> String { try script(arguments) }

    /// Runs `scripts/postgres.sh` with `arguments` on the cluster in `directory` (the project's, under .postgres/, by
    /// default).
    @discardableResult
    static func script(_ arguments: [String], directory: String? = nil) throws -> String {
        let command = arguments.joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        if let directory { environment["TVEKIT_POSTGRES_DIR"] = directory }
        let outcome = try Spawning.run(
            "/bin/bash", arguments: [repository.appendingPathComponent("scripts/postgres.sh").path] + arguments,
            environment: environment)
        guard outcome.status == 0 else {
            throw ClusterError(
                reason:
                    "scripts/postgres.sh \(command) failed (exit \(outcome.status)): \(String(decoding: outcome.stderr.suffix(2000), as: UTF8.self)); see postgres.log in .postgres/ or the folder named in .postgres/cluster"
            )
        }
        return String(decoding: outcome.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ClusterError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The cluster's URL: TVEKIT_POSTGRES_URL, else the project's cluster, started if needed.
    static func url() throws -> String {
        if let url = ProcessInfo.processInfo.environment["TVEKIT_POSTGRES_URL"], !url.isEmpty { return url }
        return try started.get()
    }

    /// One start per test process, tied to it: a cluster this process started stops once the process has exited.
    private static let started = Result { try script("start", "--for-pid", String(ProcessInfo.processInfo.processIdentifier)) }

    /// A configuration on a table of the test's own (on the cluster at `url`, the project's by default). The 30 s
    /// timeout turns a hang into a failure; it is wide because the suite's start is crowded on two cores (a first
    /// statement there, with its connection and its table, once took over 5 s in a fresh-clone CI run).
    static func configuration(timeout: Duration = .seconds(30), url: String? = nil) throws -> PostgresReplayGuard.Configuration {
        var configuration = try PostgresReplayGuard.Configuration(url: try url ?? Self.url(), password: nil)
        configuration.tls = .disable
        configuration.table = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        configuration.timeout = timeout
        return configuration
    }

    /// A postgres-nio configuration for the database of `configuration` (no password, no TLS), with a pool of
    /// `maximumConnections`: for tests that run a client of their own beside the guard.
    static func clientConfiguration(
        for configuration: PostgresReplayGuard.Configuration, maximumConnections: Int
    ) -> PostgresClient.Configuration {
        var client = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username, password: nil,
            database: configuration.database, tls: .disable)
        client.options.maximumConnections = maximumConnections
        return client
    }
}

/// A cluster of its own (under .postgres-outage/) for the test that stops its database, so that the tests running beside
/// it keep theirs. Started by the first call, and stopped once the test process has exited.
enum OutageCluster {
    static let directory = PostgresCluster.repository.appendingPathComponent(".postgres-outage").path

    /// Starts the cluster (creating it the first time) and returns its URL.
    static func start() throws -> String {
        try PostgresCluster.script(["start", "--for-pid", String(ProcessInfo.processInfo.processIdentifier)], directory: directory)
    }

    static func stop() throws { try PostgresCluster.script(["stop"], directory: directory) }
}

/// A transaction that holds `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` on a table, on a connection of its own, so that the
/// guard's statements on that table wait on the database until the lock is released.
struct TableLock: Sendable {
    private let holder: Task<Void, any Error>
    private let releasing: AsyncStream<Void>.Continuation

    /// Takes the lock on `table` through `client` (which must be running) and returns once it is held; throws when it
    /// cannot be taken, so that a test fails instead of waiting.
    static func hold(on client: PostgresClient, table: String) async throws -> TableLock {
        let (locked, lockedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            defer { lockedContinuation.finish() }
            try await client.withConnection { connection in
                let logger = Logger(label: "test")
                try await connection.query(PostgresQuery(unsafeSQL: "BEGIN"), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE"), logger: logger)
                lockedContinuation.yield()
                for await _ in release { break }
                try await connection.query(PostgresQuery(unsafeSQL: "COMMIT"), logger: logger)
            }
        }
        var iterator = locked.makeAsyncIterator()
        guard await iterator.next() != nil else {
            try await holder.value
            throw PostgresCluster.ClusterError(reason: "the lock on \(table) could not be taken")
        }
        return TableLock(holder: holder, releasing: releasing)
    }

    /// Lets the lock go without waiting (from a safety timer, or while callers wait on it).
    func releaseSoon() { releasing.finish() }

    /// Lets the lock go and waits for its transaction to end.
    func release() async throws {
        releasing.finish()
        try await holder.value
    }
}

/// Runs `services` in a ServiceGroup for the body, then shuts them down gracefully.
func withServices<T: Sendable>(_ services: [any Service], _ body: () async throws -> T) async throws -> T {
    let group = ServiceGroup(configuration: .init(services: services, logger: Logger(label: "test")))
    let running = Task { try await group.run() }
    do {
        let result = try await body()
        await group.triggerGracefulShutdown()
        try await running.value
        return result
    } catch {
        await group.triggerGracefulShutdown()
        try? await running.value
        throw error
    }
}

/// A verification server on a PostgreSQL guard, on a free port; `ports` yields the port once it listens.
func fleetMember(_ configuration: PostgresReplayGuard.Configuration, ports: AsyncStream<Int>.Continuation) throws -> (
    PostgresReplayGuard, VerificationHTTPServer
) {
    let metrics = VerificationMetrics()
    let store = try PostgresReplayGuard(configuration: configuration, metricsFactory: metrics.factory)
    let service = try VerificationService(
        trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["fleet"], replayStore: store, metrics: metrics)
    return (store, VerificationHTTPServer(service: service, port: 0, onBound: { ports.yield($0) }))
}

/// Fresh tokens for the requestor `fleet`, valid now.
func freshTokens(_ count: Int) throws -> [String] {
    let issuer = MediaTokenIssuer(privateKey: Fixtures.leafKey)
    return try (0..<count).map { _ in try issuer.issue(requestorID: "fleet", resourceID: "news", mvpdId: "M").serialized }
}

/// `POST /verify` one token; the status and the result code.
func verify(_ token: String, port: Int) async throws -> (status: Int, result: String) {
    var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/verify")))
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "fleet"])
    let (data, response) = try await URLSession.shared.data(for: request)
    let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, json?["result"] as? String ?? "?")
}
