import NIOCore
import TVEPostgresReplayGuard
import TVETokens
import Testing

@Suite("PostgreSQL replay store configuration")
struct ConfigurationTests {
    @Test("a postgres URL is read; its redacted form has no password")
    func url() throws {
        let configuration = try PostgresReplayGuard.Configuration(
            url: "postgres://fleet@db.internal:6432/tokens?sslmode=require", password: "s3cret")
        #expect(configuration.host == "db.internal" && configuration.port == 6432 && configuration.username == "fleet")
        #expect(configuration.database == "tokens" && configuration.tls == .require && configuration.password == "s3cret")
        #expect(configuration.redactedURL == "postgres://fleet@db.internal:6432/tokens")
        #expect(try PostgresReplayGuard.Configuration(url: "postgresql://u@h/d", password: nil).port == 5432)
    }

    @Test("rejectsPasswordInURL: a password in the URL would land in argv and logs, so it is refused")
    func rejectsPasswordInURL() {
        #expect(throws: ReplayStoreError(.passwordInURL, "")) {
            try PostgresReplayGuard.Configuration(url: "postgres://u:pw@h:5432/d", password: nil)
        }
    }

    @Test("neverLogsPassword: printing, debug-printing or dumping a configuration does not show its password")
    func neverLogsPassword() throws {
        let configuration = try PostgresReplayGuard.Configuration(url: "postgres://fleet@db:5432/tokens", password: "hunter2-secret")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: configuration), String(reflecting: configuration), "\(configuration)", dumped] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        #expect(String(describing: configuration).contains("postgres://fleet@db:5432/tokens"))
    }

    @Test(
        "malformed URLs and options are refused",
        arguments: ["mysql://u@h/d", "postgres://h/d", "postgres://u@h", "postgres://u@h/d?x=1", "postgres://u@h/d?sslmode=maybe"])
    func malformed(url: String) {
        #expect(throws: ReplayStoreError(.invalidURL, "")) { try PostgresReplayGuard.Configuration(url: url, password: nil) }
    }

    @Test("rejectsSQLInjectionInTableName: the table name is an identifier, never SQL")
    func rejectsSQLInjectionInTableName() throws {
        var configuration = try PostgresReplayGuard.Configuration(url: "postgres://u@h/d", password: nil)
        configuration.table = "keys; DROP TABLE users"
        #expect(throws: ReplayStoreError(.invalidTableName, "")) { try PostgresReplayGuard(configuration: configuration) }
        configuration.table = "tvekit_keys"
        configuration.timeout = .zero
        #expect(throws: ReplayStoreError(.invalidLimit, "")) { try PostgresReplayGuard(configuration: configuration) }
    }

    @Test("an unreachable database answers unavailable within the timeout: fail closed")
    func unreachable() async throws {
        var configuration = try PostgresReplayGuard.Configuration(url: "postgres://u@127.0.0.1:1/d", password: nil)
        configuration.tls = .disable
        configuration.timeout = .milliseconds(200)
        let store = try PostgresReplayGuard(configuration: configuration)
        try await withServices([store]) {
            let started = ContinuousClock.now
            let decision = await store.recordFirstUse(of: try TokenReplayKey(signedBytes: [1, 2, 3]), expiresAt: 10, now: 0)
            guard case .unavailable = decision else {
                Issue.record("an unreachable database gave \(decision)")
                return
            }
            // 200 ms alone (0.21 s measured); the bound leaves room for a suite whose parallel RSA tests can hold both
            // threads of the cooperative pool that the deadline's timer needs. Without the deadline this waits for ever.
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }
}

@Suite("PostgreSQL replay guard: the stored key")
struct StoredKeyTests {
    @Test("the bytea a key is stored as is the digest's 32 bytes, as before (written from its words, read back equal)")
    func storedKeyBytes() throws {
        let key = try TokenReplayKey(signedBytes: Array("<authToken>x</authToken>".utf8))
        let buffer = PostgresReplayGuardTestHook.buffer(key)
        #expect(Array(buffer.readableBytesView) == key.bytes)
        #expect(buffer.withUnsafeReadableBytes { TokenReplayKey(sha256Digest: $0) } == key)
    }
}
