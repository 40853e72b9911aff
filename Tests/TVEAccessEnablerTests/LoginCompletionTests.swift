import Foundation
import Testing
import TVEAccessEnabler
import TVESandbox
import TVEServiceProvider

/// How a login ends: only the configured redirect completes it, only for the MVPD picked, and a failed completion can be
/// retried.
@Suite("AccessEnabler: completing a login (the redirect, stray redirects, a failed completion)")
struct LoginCompletionTests {
    @Test("rejectsForeignRedirect: handleExternalURL with a look-alike of the redirect URL completes nothing")
    func rejectsForeignRedirect() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            _ = try await SandboxBrowser().navigate(
                to: try #require(recorder.lastNavigation), username: "viewer", password: "sandbox-password")
            for bad in ["adobepass://ios.app.evil/", "adobepass://ios.apple", "https://ios.app/", "adobepass://user@ios.app"] {
                recorder.reset()
                enabler.handleExternalURL(try #require(URL(string: bad)))
                await enabler.drain()
                #expect(recorder.flow == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR")], "\(bad)")
            }
        }
    }

    @Test(
        "strayRedirectForAnotherMVPD: handleExternalURL with no login made completes nothing when the device is authenticated with another MVPD"
    )
    func strayRedirectForAnotherMVPD() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(), recorder)
            try await logIn(enabler, recorder, provider)
            recorder.reset()
            enabler.getAuthentication(forceAuthn: true)
            enabler.setSelectedProvider("SandboxSSO")
            enabler.handleExternalURL(try #require(URL(string: AsyncAccessEnabler.defaultRedirectURL)))
            enabler.getSelectedProvider()
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.count == 4, "\(flow)")
            #expect(flow.suffix(2) == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"), .selected("SandboxSSO")])
            // Cancelling the login leaves the authentication with SandboxCable as it was.
            recorder.reset()
            enabler.setSelectedProvider(nil)
            enabler.getSelectedProvider()
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .authenticationStatus(0, "PROVIDER_NOT_SELECTED_ERROR"), .selected("SandboxCable"),
                    .authenticationStatus(1, ""),
                ])
        }
    }

    @Test("a network failure while completing the login reports GENERIC_AUTHENTICATION_ERROR")
    func networkFailureOnCompletion() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = FaultyTransport([("/api/v1/tokens/authn", .unreachable, 1)])
            let enabler = makeEnabler(provider.enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
            else {
                Issue.record("no redirect"); return
            }
            recorder.reset()
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR")])
            // The login is still pending: once the network is back, the same redirect completes it.
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
        }
    }
}
