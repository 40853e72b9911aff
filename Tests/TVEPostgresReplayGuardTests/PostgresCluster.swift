import Foundation
import Logging
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/postgres.sh").path] + arguments
        if let directory {
            process.environment = ProcessInfo.processInfo.environment.merging(["TVEKIT_POSTGRES_DIR": directory]) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClusterError(
                reason:
                    "scripts/postgres.sh \(command) failed (exit \(process.terminationStatus)); see postgres.log in .postgres/ or the folder named in .postgres/cluster"
            )
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// A configuration on a table of the test's own (on the cluster at `url`, the project's by default).
    static func configuration(timeout: Duration = .seconds(5), url: String? = nil) throws -> PostgresReplayGuard.Configuration {
        var configuration = try PostgresReplayGuard.Configuration(url: try url ?? Self.url(), password: nil)
        configuration.tls = .disable
        configuration.table = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        configuration.timeout = timeout
        return configuration
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
