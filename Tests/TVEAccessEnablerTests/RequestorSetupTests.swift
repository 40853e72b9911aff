import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider
import TVETokens

/// `setRequestor` called again (new credentials, another requestor, back in the foreground) and the MVPD list it keeps.
@Suite("AccessEnabler: setRequestor again, re-sync and the MVPD list")
struct RequestorSetupTests {
    @Test("setRequestor again: corrected credentials are used, another requestor's tokens are kept apart, options are sent")
    func setRequestorAgain() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(.init(id: "tvekit-other", mvpds: ["SandboxCable"]))
        try await withLocalProvider(configuration) { provider in
            // A wrong signed requestor ID, then the right one, on the same instance.
            let transport = RecordingTransport()
            let core = AsyncAccessEnabler(
                configuration: .init(transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep, api: .v1))
            await #expect(throws: AccessEnablerError.self) {
                try await core.setRequestor("tvekit-sandbox", signedRequestorID: "bm90IGEgc2lnbmF0dXJl", serviceProviders: [provider.url])
            }
            let signature = try SignedRequestorID.sign("tvekit-sandbox", with: provider.keys.requestorKey)
            #expect(
                try await core.setRequestor("tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url]).count == 2)
            await core.setOptions(.init(applicationProfile: "profile-1", visitorID: "visitor-1"))
            _ = try await core.setRequestor("tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url])
            #expect(transport.urls.withLock { $0.last?.query }?.contains("applicationProfile=profile-1&visitorID=visitor-1") == true)

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

    @Test(
        "setRequestor again (back in the foreground) drops an authentication the service provider no longer has",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func foregroundResync(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authenticationTTL = 600
        try await withLocalProvider(configuration) { provider in
            // The device's clock stands still while the service provider's moves on.
            let deviceClock = TestClock(provider.clock.nowMilliseconds)
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(clock: deviceClock, sleep: SleepRecorder().sleep, api: api))
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(try await core.checkAuthentication().mvpd == "SandboxCable")
            provider.clock.advance(seconds: 601)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await core.checkAuthentication() }
        }
    }

    @Test("an MVPD entry with an oversized field is left out of the list")
    func oversizedMVPDEntriesAreDropped() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds.append(
            .init(
                id: "HugeCable", displayName: String(repeating: "H", count: 5000),
                users: [.init(username: "huge", password: "sandbox-password")]))
        configuration.requestors[0].mvpds.append("HugeCable")
        try await withLocalProvider(configuration) { provider in
            let mvpds = try await provider.enabler().setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(mvpds.map(\.id) == ["SandboxCable", "SandboxSSO"])
        }
    }
}
