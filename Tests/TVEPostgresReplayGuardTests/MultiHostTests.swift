import NIOCore
import TVETokens
import Testing

@testable import TVEPostgresReplayGuard

@Suite("PostgreSQL replay store: a primary and its standbys")
struct MultiHostTests {
    @Test("a multi-host URL is read in libpq's form: several hosts, IPv6 in brackets, target_session_attrs=read-write")
    func multiHostURL() throws {
        let configuration = try PostgresReplayGuard.Configuration(
            url: "postgresql://fleet@db1.internal,db2.internal:5433,[::1]:6000/tokens?target_session_attrs=read-write&sslmode=disable",
            password: "s3cret")
        #expect(
            configuration.hosts == [
                .init("db1.internal"), .init("db2.internal", port: 5433), .init("::1", port: 6000),
            ])
        #expect(configuration.tls == .disable && configuration.database == "tokens" && configuration.username == "fleet")
        #expect(configuration.host == "db1.internal" && configuration.port == 5432)
        #expect(configuration.redactedURL == "postgres://fleet@db1.internal:5432,db2.internal:5433,[::1]:6000/tokens")
        let primary = try PostgresReplayGuard.Configuration(url: "postgres://u@a:1,b:2/d?target_session_attrs=primary", password: nil)
        #expect(primary.hosts.count == 2)
        let encoded = try PostgresReplayGuard.Configuration(url: "postgres://fleet%2Done@h/my%20db", password: nil)
        #expect(encoded.username == "fleet-one" && encoded.database == "my db")
    }

    @Test(
        "malformed host lists and session attributes the store cannot use are refused",
        arguments: [
            "postgres://u@h1,/d", "postgres://u@,h2/d", "postgres://u@h:99999/d", "postgres://u@h:0/d", "postgres://u@h:54x/d",
            "postgres://u@[::1/d", "postgres://u@[::1]x/d", "postgres://u@h;drop/d", "postgres://u@h/d?target_session_attrs=any",
            "postgres://u@h/d?target_session_attrs=read-only", "postgres://u@h/d#frag", "postgres://u@h/d%zz", "postgres://%ff@h/d",
        ])
    func malformedHosts(url: String) {
        #expect(throws: ReplayStoreError(.invalidURL, "")) { try PostgresReplayGuard.Configuration(url: url, password: nil) }
    }

    @Test("a password in a multi-host URL is refused as in a single-host one")
    func passwordInMultiHostURL() {
        #expect(throws: ReplayStoreError(.passwordInURL, "")) {
            try PostgresReplayGuard.Configuration(url: "postgres://u:hunter2@a:1,b:2/d", password: nil)
        }
    }

    @Test("the same host twice, over 16 hosts, or a probe interval out of range is refused when the guard is made")
    func hostLimits() throws {
        var configuration = try PostgresReplayGuard.Configuration(url: "postgres://u@a:1,a:1/d", password: nil)
        #expect(throws: ReplayStoreError(.invalidLimit, "")) { try PostgresReplayGuard(configuration: configuration) }
        configuration.hosts = (1...17).map { .init("h\($0)") }
        #expect(throws: ReplayStoreError(.invalidLimit, "")) { try PostgresReplayGuard(configuration: configuration) }
        configuration.hosts = [.init("a"), .init("b")]
        configuration.hostProbeInterval = .milliseconds(1)
        #expect(throws: ReplayStoreError(.invalidLimit, "")) { try PostgresReplayGuard(configuration: configuration) }
    }

    @Test("failClosedDuringFailover: while no host is known to take writes, a check answers unavailable at once")
    func failClosedDuringFailover() async throws {
        var configuration = try PostgresReplayGuard.Configuration(url: "postgres://u@127.0.0.1:1,127.0.0.1:2/d", password: nil)
        configuration.tls = .disable
        configuration.timeout = .seconds(60)
        let store = try PostgresReplayGuard(configuration: configuration)
        try await withServices([store]) {
            let started = ContinuousClock.now
            let decision = await store.recordFirstUse(of: try TokenReplayKey(signedBytes: [1, 2, 3]), expiresAt: 10, now: 0)
            guard case .unavailable = decision else {
                Issue.record("no writable host gave \(decision)")
                return
            }
            // No statement waits for its 60 s deadline: with no writable host the answer is immediate (milliseconds; the
            // bound leaves room for a loaded two-core machine whose cooperative pool is busy with the suite's RSA tests).
            #expect(ContinuousClock.now - started < .seconds(45))
        }
    }
}

@Suite("PostgreSQL replay store: which host takes writes")
struct WritableHostTests {
    @Test("a lost host is forgotten and the prober woken; another host's loss changes nothing")
    func lostHost() async {
        let tracker = WritableHost(initial: nil)
        #expect(tracker.current == nil)
        #expect(tracker.found(1).changed)
        #expect(tracker.current == 1 && tracker.changes == 1)
        tracker.lost(0)
        #expect(tracker.current == 1)
        tracker.lost(1)
        #expect(tracker.current == nil)
        // The loss was signalled before anyone waited: the next wait returns at once, not after an hour.
        let started = ContinuousClock.now
        await tracker.wait(atMost: .seconds(3600))
        #expect(ContinuousClock.now - started < .seconds(600))
    }

    @Test("a suspicion wakes a waiting prober without forgetting the host")
    func suspicionWakes() async {
        let tracker = WritableHost(initial: 0)
        let started = ContinuousClock.now
        async let waited: Void = tracker.wait(atMost: .seconds(3600))
        try? await Task.sleep(for: .milliseconds(50))
        tracker.suspect()
        await waited
        #expect(ContinuousClock.now - started < .seconds(600))
        #expect(tracker.current == 0)
    }

    @Test("a wait with nothing to wake it ends at its interval")
    func waitEndsAtInterval() async {
        let tracker = WritableHost(initial: 0)
        let started = ContinuousClock.now
        await tracker.wait(atMost: .milliseconds(20))
        #expect(ContinuousClock.now - started >= .milliseconds(20))
    }
}
