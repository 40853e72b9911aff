import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider

/// The tvOS wait for a second screen: cancelled, timed out, overtaken by a logout, with a zero interval.
@Suite("AccessEnabler: the tvOS second-screen wait")
struct SecondScreenTests {
    @Test(
        "tvOS: cancelling during the second-screen wait reports PROVIDER_NOT_SELECTED_ERROR once; an unused code times out",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func pollingCancelAndTimeout(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(platform: .tvOS, api: api), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            enabler.setSelectedProvider(nil)
            await enabler.drain()
            try await Task.sleep(for: .milliseconds(200))
            let statuses = recorder.flow.filter { if case .authenticationStatus = $0 { true } else { false } }
            #expect(statuses == [.authenticationStatus(0, "PROVIDER_NOT_SELECTED_ERROR")])

            let quick = Recorder()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    clock: provider.clock, platform: .tvOS, pollingInterval: .milliseconds(10), pollingTimeout: .milliseconds(40),
                    sleep: SleepRecorder().sleep, api: api))
            let timing = makeEnabler(core, quick)
            timing.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            timing.getAuthentication()
            timing.setSelectedProvider("SandboxCable")
            #expect(await quick.wait { $0 == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR") } != nil)
        }
    }

    @Test("tvOS: a logout made while the second-screen login is being stored wins; no status 1 follows the logout")
    func logoutDuringSecondScreenCompletion() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = GatedTransport(holding: "/api/v1/config")
            let enabler = makeEnabler(provider.enabler(platform: .tvOS, transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            // A setRequestor held at the service provider keeps the enabler busy (and its token store locked) ...
            transport.closed.withLock { $0 = true }
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await Task.sleep(for: .milliseconds(100))
            // ... while the code is used on a phone and the polling finds the authentication, and the app logs out.
            var components = URLComponents(url: provider.url.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                .init(name: "requestor_id", value: "tvekit-sandbox"), .init(name: "mso_id", value: "SandboxCable"),
                .init(name: "reg_code", value: code),
            ]
            _ = try await SandboxBrowser().navigate(to: try #require(components?.url), username: "viewer", password: "sandbox-password")
            try await Task.sleep(for: .milliseconds(300))
            recorder.reset()
            enabler.logout()
            transport.closed.withLock { $0 = false }
            await enabler.drain()
            try await Task.sleep(for: .milliseconds(300))
            await enabler.drain()
            let statuses = recorder.flow.filter { if case .authenticationStatus = $0 { true } else { false } }
            #expect(statuses.last == .authenticationStatus(0, ""), "\(recorder.flow)")
            #expect(!statuses.contains(.authenticationStatus(1, "")), "\(recorder.flow)")
            await #expect(throws: AccessEnablerError.self) { try await enabler.core.checkAuthentication() }
        }
    }

    @Test("a polling interval of zero still waits and ends at the timeout")
    func zeroPollingInterval() async throws {
        try await withLocalProvider { provider in
            let sleeper = SleepRecorder()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    clock: provider.clock, platform: .tvOS, pollingInterval: .zero, pollingTimeout: .milliseconds(100), sleep: sleeper.sleep
                ))
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            _ = try await core.selectProvider("SandboxCable")
            await #expect(throws: AccessEnablerError.self) { _ = try await core.waitForSecondScreen() }
            #expect(!sleeper.recorded.isEmpty && sleeper.recorded.allSatisfy { $0 > .zero })
        }
    }
}
