import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider

/// A transport that fails on purpose for paths that match, and otherwise passes through.
final class FaultyTransport: EntitlementTransport {
    enum Fault: Sendable {
        case unreachable
        case status(Int, body: String, headers: [String: String] = [:])
        case timeout
    }

    let inner = URLSessionTransport(timeout: 30)
    private let faults: Locked<[(path: String, fault: Fault, remaining: Int)]>

    init(_ faults: [(path: String, fault: Fault, times: Int)]) {
        self.faults = Locked(faults.map { ($0.path, $0.fault, $0.times) })
    }

    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        let fault = faults.withLock { faults -> Fault? in
            guard let index = faults.firstIndex(where: { request.url.path.hasPrefix($0.path) && $0.remaining > 0 }) else { return nil }
            faults[index].remaining -= 1
            return faults[index].fault
        }
        switch fault {
        case nil: return try await inner.send(request)
        case .unreachable?: throw URLError(.cannotConnectToHost)
        case .timeout?: throw URLError(.timedOut)
        case .status(let status, let body, let headers)?:
            return EntitlementHTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        }
    }
}

@Suite("AccessEnabler: failures, back-off, storage, several service providers")
struct FailureTests {
    @Test(
        "setRequestor fails with status 0 when the provider is down, answers 500, times out or sends malformed JSON",
        arguments: [
            ("down", FaultyTransport.Fault.unreachable),
            ("500", .status(500, body: #"{"status":500,"message":"Internal Error"}"#)),
            ("slow", .timeout),
            ("malformed", .status(200, body: #"{"requestor": {"mvpds": "#)),
        ])
    func configurationFailures(name: String, fault: FaultyTransport.Fault) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(transport: FaultyTransport([("/api/v1/config", fault, 100)])), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            enabler.checkAuthorization("news")
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.contains(.requestorComplete(0)), "\(name)")
            #expect(flow.contains(.authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR")), "\(name)")
            #expect(flow.last == .failed("news", code: "USER_NOT_AUTHENTICATED_ERROR", description: ""), "\(name)")
        }
    }

    @Test(
        "several service providers: configurations merged, the first responder keeps a duplicate, each MVPD's calls go to its provider; one down is tolerated",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases
    )
    func severalProviders(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        var second = ServiceProviderConfiguration.sandbox
        second.mvpds.append(
            .init(id: "OtherCable", displayName: "Other Cable", users: [.init(username: "other", password: "sandbox-password")]))
        second.requestors[0].mvpds = ["OtherCable", "SandboxCable"]
        let secondConfiguration = second
        try await withLocalProvider { first in
            try await withLocalProvider(secondConfiguration, clock: first.clock) { other in
                let core = first.enabler(api: api)
                let mvpds = try await core.setRequestor("tvekit-sandbox", serviceProviders: [first.url, other.url])
                // REST API v2's configuration lists the TempPass MVPDs too.
                let temp: Set<String> = api == .v2 ? ["SandboxTempPass", "SandboxPromoPass"] : []
                #expect(Set(mvpds.map(\.id)) == Set(["SandboxCable", "SandboxSSO", "OtherCable"]).union(temp))
                #expect(mvpds.first { $0.id == "OtherCable" }?.serviceProvider == other.url)
                guard case .navigate(let url, _) = try await core.selectProvider("OtherCable") else { Issue.record("no URL"); return }
                #expect(url.port == other.url.port)
                guard
                    case .redirect(let back) = try await SandboxBrowser().navigate(to: url, username: "other", password: "sandbox-password")
                else {
                    Issue.record("no redirect"); return
                }
                #expect(try await core.handleExternalURL(back).mvpd == "OtherCable")

                let down = try #require(URL(string: "http://127.0.0.1:9"))
                let tolerant = first.enabler(api: api)
                let list = try await tolerant.setRequestor("tvekit-sandbox", serviceProviders: [down, first.url])
                #expect(list.count == 2 + temp.count)
            }
        }
    }

    @Test("429: the flow layer waits Retry-After (at least 1 s, doubling) and retries; after 3 retries it reports CFG429")
    func throttling() async throws {
        try await withLocalProvider { provider in
            let sleeper = SleepRecorder()
            let throttled = FaultyTransport.Fault.status(429, body: "{}", headers: ["Retry-After": "2"])
            let core = provider.enabler(transport: FaultyTransport([("/api/v1/config", throttled, 2)]), sleeper: sleeper)
            let merged = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(merged.count == 2)
            #expect(sleeper.recorded == [.seconds(2), .seconds(2)])

            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(transport: FaultyTransport([("/api/v1/config", throttled, 10)])), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await enabler.drain()
            guard case .status("CFG429", let message)? = recorder.flow.first else { Issue.record("\(recorder.flow)"); return }
            #expect(message == "the service provider throttled GET /api/v1/config/tvekit-sandbox (HTTP 429 4 times in 8 s)")
            #expect(recorder.flow.last == .requestorComplete(0))
        }
    }

    @Test("the file token store survives a restart (0600, atomic), prunes expired tokens, and logout clears it")
    func fileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalProvider { provider in
            let store = FileTokenStore(directory: directory)
            let first = provider.enabler(store: store)
            try await first.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            let token = try await logIn(first)
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".json") })
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)
            #expect(attributes[.posixPermissions] as? Int == 0o600)

            // A new process: the same store, no login.
            let second = provider.enabler(store: FileTokenStore(directory: directory))
            try await second.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(try await second.checkAuthentication() == token)
            let firstID = try await first.deviceID()
            #expect(try await second.deviceID() == firstID)
            _ = try await second.authorize(resource: "news")

            // Expired tokens are pruned when read.
            provider.clock.advance(seconds: 86_401)
            let third = provider.enabler(store: FileTokenStore(directory: directory))
            try await third.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await third.checkAuthentication() }
            _ = try await third.logout()
            let reloaded = try FileTokenStore(directory: directory).load(requestor: "tvekit-sandbox")
            #expect(reloaded?.authentication == nil)
        }
    }

    @Test("clock skew: a device clock ahead of the token's expiry treats it as expired; an authorization the server dropped is renewed")
    func clockSkewAndExpiredAuthorization() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authorizationTTL = 60
        try await withLocalProvider(configuration) { provider in
            let deviceClock = TestClock(provider.clock.nowMilliseconds)
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement, configuration: .init(clock: deviceClock, sleep: SleepRecorder().sleep))
            try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            _ = try await core.authorize(resource: "news")
            // The server's authorization expires; the stored one is renewed transparently.
            provider.clock.advance(seconds: 61)
            deviceClock.advance(seconds: 30)
            _ = try await core.authorize(resource: "news")
            // The device clock runs two days ahead: its authentication has expired by its own clock.
            deviceClock.advance(seconds: 172_800)
            await #expect(throws: AccessEnablerError.self) { try await core.checkAuthentication() }
        }
    }

    @Test(
        "expired tokens: once the authentication's TTL passes, checkAuthentication reports status 0 and checkAuthorization fails unauthenticated"
    )
    func expiredAuthentication() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authenticationTTL = 600
        try await withLocalProvider(configuration) { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(), recorder)
            try await logIn(enabler, recorder, provider)
            provider.clock.advance(seconds: 601)
            recorder.reset()
            enabler.checkAuthentication()
            enabler.checkAuthorization("news")
            enabler.getMetadata(.authenticationTTL)
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                    .failed("news", code: "USER_NOT_AUTHENTICATED_ERROR", description: ""),
                    .metadata(nil, encrypted: false, key: .authentication),
                ])
        }
    }

    @Test("logout after platform SSO: a service provider that cannot be told still gives VSA203, the logout page and status 0")
    func logoutFailureKeepsVSA203() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = FaultyTransport([("/api/v1/logout", .status(500, body: #"{"status":500,"message":"Internal Error"}"#), 1)])
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep,
                    tvProviderAccount: PlatformSSOTests.account(provider), api: .v1))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.first == .status("VSA203", AdvancedStatus.signOutInSettings.message))
            guard flow.count == 3, case .status("INTERNAL_ERROR", let message) = flow[1], case .navigate(let page, false) = flow[2] else {
                Issue.record("\(flow)")
                return
            }
            #expect(message.contains("logout failed"))
            #expect(try await core.logout().page == nil)  // nobody is logged in any more
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page) else { Issue.record("no redirect"); return }
            recorder.reset()
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "")])
        }
    }
}
