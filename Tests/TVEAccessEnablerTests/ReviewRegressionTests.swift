import Foundation
import NIOConcurrencyHelpers
import Testing
import TVEAccessEnabler
import TVEServer
import TVETokens

/// A transport that remembers every request (and, in `urls`, every request URL).
final class RecordingTransport: EntitlementTransport {
    let inner: any EntitlementTransport
    let urls = NIOLockedValueBox<[URL]>([])
    let requests = NIOLockedValueBox<[EntitlementHTTPRequest]>([])
    init(_ inner: any EntitlementTransport = URLSessionTransport(timeout: 5)) { self.inner = inner }
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        urls.withLockedValue { $0.append(request.url) }
        requests.withLockedValue { $0.append(request) }
        return try await inner.send(request)
    }

    /// The query items of the requests whose path ends with `suffix`.
    func queries(endingWith suffix: String) -> [[String: String]] {
        requests.withLockedValue { $0 }.filter { $0.url.path.hasSuffix(suffix) }.map { request in
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
    }
}

@Suite("AccessEnabler: state changes, concurrency and hostile inputs")
struct ReviewRegressionTests {
    @Test("rejectsForeignRedirect: handleExternalURL with a look-alike of the redirect URL completes nothing")
    func rejectsForeignRedirect() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            _ = try await SandboxBrowser().navigate(to: try #require(recorder.lastNavigation), username: "viewer", password: "sandbox-password")
            for bad in ["adobepass://ios.app.evil/", "adobepass://ios.apple", "https://ios.app/", "adobepass://user@ios.app"] {
                recorder.reset()
                enabler.handleExternalURL(try #require(URL(string: bad)))
                await enabler.drain()
                #expect(recorder.flow == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR")], "\(bad)")
            }
        }
    }

    @Test("setRequestor again: corrected credentials are used, another requestor's tokens are kept apart, options are sent")
    func setRequestorAgain() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(.init(id: "tvekit-other", mvpds: ["SandboxCable"]))
        try await withLocalProvider(configuration) { provider in
            // A wrong signed requestor ID, then the right one, on the same instance.
            let transport = RecordingTransport()
            let core = AsyncAccessEnabler(configuration: .init(transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep))
            await #expect(throws: AccessEnablerError.self) {
                try await core.setRequestor("tvekit-sandbox", signedRequestorID: "bm90IGEgc2lnbmF0dXJl", serviceProviders: [provider.url])
            }
            let signature = try SignedRequestorID.sign("tvekit-sandbox", with: provider.keys.requestorKey)
            #expect(try await core.setRequestor("tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url]).count == 2)
            await core.setOptions(.init(applicationProfile: "profile-1", visitorID: "visitor-1"))
            _ = try await core.setRequestor("tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url])
            #expect(transport.urls.withLockedValue { $0.last?.query }?.contains("applicationProfile=profile-1&visitorID=visitor-1") == true)

            // Requestor A logged in; switching to B and back keeps A's login and does not leak it to B.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-switch-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let enabler = provider.enabler(store: FileTokenStore(directory: directory))
            _ = try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(enabler)
            _ = try await enabler.setRequestor("tvekit-other", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await enabler.checkAuthentication() }
            _ = try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(try await enabler.checkAuthentication().mvpd == "SandboxCable")
        }
    }

    @Test("concurrent authorize and logout: whatever the order, the user ends logged out locally")
    func concurrentAuthorizeAndLogout() async throws {
        try await withLocalProvider { provider in
            let enabler = provider.enabler()
            _ = try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(enabler)
            async let authorized = try? enabler.authorize(resource: "news")
            async let loggedOut = try? enabler.logout()
            _ = await (authorized, loggedOut)
            await #expect(throws: AccessEnablerError.self) { try await enabler.checkAuthentication() }
            #expect(try await enabler.metadata(.authorizationTTL(resource: "news")).value == nil)
        }
    }

    @Test("a token file that does not parse is moved aside and the enabler starts empty")
    func corruptTokenFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-corrupt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalProvider { provider in
            let store = FileTokenStore(directory: directory)
            try store.save(StoredEntitlements(deviceID: "d"), requestor: "tvekit-sandbox")
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".json") })
            try Data("{\"deviceID\": ".utf8).write(to: directory.appendingPathComponent(file))
            let enabler = provider.enabler(store: store)
            #expect(try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url]).count == 2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.contains(".unreadable-") })
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
            #expect((attributes[.posixPermissions] as? Int ?? 0o777) & 0o022 == 0)
        }
    }

    @Test("tvOS: cancelling during the second-screen wait reports PROVIDER_NOT_SELECTED_ERROR once; an unused code times out")
    func pollingCancelAndTimeout() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(platform: .tvOS), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            enabler.setSelectedProvider(nil)
            await enabler.drain()
            try await Task.sleep(for: .milliseconds(200))
            let statuses = recorder.flow.filter { if case .authenticationStatus = $0 { true } else { false } }
            #expect(statuses == [.authenticationStatus(0, "PROVIDER_NOT_SELECTED_ERROR")])

            let quick = Recorder()
            let core = AsyncAccessEnabler(softwareStatement: provider.softwareStatement, configuration: .init(
                clock: provider.clock, platform: .tvOS, pollingInterval: .milliseconds(10), pollingTimeout: .milliseconds(40),
                sleep: SleepRecorder().sleep))
            let timing = makeEnabler(core, quick)
            timing.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            timing.getAuthentication()
            timing.setSelectedProvider("SandboxCable")
            #expect(await quick.wait { $0 == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR") } != nil)
        }
    }
}

@Suite("AccessEnabler: re-sync and the no-network check")
struct ResyncTests {
    @Test("setRequestor again (back in the foreground) drops an authentication the service provider no longer has")
    func foregroundResync() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authenticationTTL = 600
        try await withLocalProvider(configuration) { provider in
            // The device's clock stands still while the service provider's moves on.
            let deviceClock = TestClock(provider.clock.nowMilliseconds)
            let core = AsyncAccessEnabler(softwareStatement: provider.softwareStatement, configuration: .init(clock: deviceClock, sleep: SleepRecorder().sleep))
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(try await core.checkAuthentication().mvpd == "SandboxCable")
            provider.clock.advance(seconds: 601)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await core.checkAuthentication() }
        }
    }

    @Test("checkAuthentication sends no request; logout with handleSVC goes through navigateToUrl(_:useSVC: true)")
    func noNetworkAndSVCLogout() async throws {
        try await withLocalProvider { provider in
            let transport = RecordingTransport()
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(transport: transport), recorder)
            enabler.setOptions(.init(handleSVC: true))
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await enabler.drain()
            let before = transport.urls.withLockedValue { $0.count }
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(transport.urls.withLockedValue { $0.count } == before)
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            guard case .navigate(let page, true)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
            #expect(page.path == "/api/v1/logout")
        }
    }
}
