import Foundation
import TVETestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("tvekit serve --replay-store")
struct FleetCLITests {
    static let certificate = CLI.repository.appendingPathComponent("TestVectors/fixtures/leaf.cert.pem").path

    @Test("rejectsPasswordInURL: a database password in the --replay-store URL is refused before anything starts, and not echoed")
    func rejectsPasswordInURL() throws {
        let outcome = try CLI.run([
            "serve", "--verifier-only", "--cert", Self.certificate, "--requestor", "R", "--port", "0",
            "--replay-store", "postgres://fleet:hunter2@127.0.0.1:5432/tokens",
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("passwordInURL") || outcome.stderr.contains("password"))
        #expect(!outcome.stderr.contains("hunter2"))
    }

    @Test("--replay-store needs --verifier-only, and a URL of the postgres scheme")
    func usage() throws {
        #expect(try CLI.run(["serve", "--replay-store", "postgres://u@h/d"]).status != 0)
        let outcome = try CLI.run([
            "serve", "--verifier-only", "--cert", Self.certificate, "--requestor", "R", "--replay-store", "redis://h",
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("postgres://"))
    }

    @Test("token issue --count prints that many distinct tokens, one per line")
    func issueCount() throws {
        let key = CLI.repository.appendingPathComponent("TestVectors/fixtures/leaf.pkcs8.pem").path
        let outcome = try CLI.run([
            "token", "issue", "--private-key", key, "--requestor", "R", "--resource", "S", "--mvpd", "M", "--count", "3",
        ])
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 3 && Set(lines).count == 3)
    }
}

@Suite("tvekit serve --replay-store: a stop with answers in flight")
struct FleetShutdownCLITests {
    /// The cluster's URL: TVEKIT_POSTGRES_URL, else the project's cluster, started for this test process.
    static func clusterURL() throws -> String {
        if let url = ProcessInfo.processInfo.environment["TVEKIT_POSTGRES_URL"], !url.isEmpty { return url }
        let outcome = try Spawning.run(
            "/bin/bash",
            arguments: [
                CLI.repository.appendingPathComponent("scripts/postgres.sh").path, "start", "--for-pid",
                String(ProcessInfo.processInfo.processIdentifier),
            ])
        return String(decoding: outcome.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The replay guard's statements that wait for a lock.
    static func waitingStatements(_ url: String) throws -> Int {
        let outcome = try Spawning.run(
            "psql",
            arguments: [
                url, "-tAc",
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tvekit-replay-guard' AND wait_event_type = 'Lock'",
            ])
        return Int(String(decoding: outcome.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test(
        "sigtermWithDatabaseAnswersInFlight: SIGTERM while PostgreSQL holds the answers: every request is answered, exit 0, no event loop used after its shutdown"
    )
    func sigtermWithAnswersInFlight() async throws {
        let url = try Self.clusterURL()
        let (server, errors, base) = try await ServeCommandTests.start([
            "--verifier-only", "--cert", FleetCLITests.certificate, "--requestor", "R", "--threads", "1",
            "--replay-store", url + "?sslmode=disable", "--replay-store-timeout-ms", "4000",
        ])
        defer { if server.isRunning { server.terminate() } }
        let key = CLI.repository.appendingPathComponent("TestVectors/fixtures/leaf.pkcs8.pem").path
        let tokens = try CLI.run([
            "token", "issue", "--private-key", key, "--requestor", "R", "--resource", "S", "--mvpd", "M", "--count", "5",
        ]).stdout.split(separator: "\n").map(String.init)
        try #require(tokens.count == 5)
        let verifyURL = try #require(URL(string: base + "/verify"))
        func verify(_ token: String) async throws -> Int {
            var request = URLRequest(url: verifyURL)
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "R"])
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        // The table exists once a first token is checked.
        #expect(try await verify(tokens[0]) == 200)
        // A session holds the table locked: the next checks wait in PostgreSQL.
        let lock = try Spawning.launch(
            "psql",
            arguments: [
                url, "-q", "-c", "BEGIN; LOCK TABLE tvekit_replay_keys IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(2.5); COMMIT;",
            ])
        try await Task.sleep(for: .milliseconds(400))
        let inFlight = tokens.dropFirst().map { token in Task { try await verify(token) } }
        // The stop begins once the checks wait in PostgreSQL (two statements: the store's default in flight), not after a
        // fixed time that a loaded machine can outlast before its requests even reach the server.
        for _ in 0..<40 where try Self.waitingStatements(url) < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(200))
        let status = try await ServeCommandTests.stop(server, signal: SIGTERM)
        for request in inFlight {
            let answer = try await request.value
            #expect(answer == 200 || answer == 503, "answered \(answer)")
        }
        lock.waitUntilExit()
        #expect(status == 0)
        let log = errors.text
        #expect(!log.contains("shut down") || !log.contains("EventLoop"), "\(log.suffix(600))")
        #expect(!log.contains("will become a crash"))
    }
}
