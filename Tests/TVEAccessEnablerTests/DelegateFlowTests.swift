import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVEMetadata
import TVESandbox
import TVEServiceProvider
import TVETokens

/// The cookbook flows through the delegate API, against the local service provider, asserting the exact callbacks.
@Suite("AccessEnabler delegate API: the cookbook flows")
struct DelegateFlowTests {
    /// The provider dialog of the sandbox's requestor: REST API v2's configuration lists its TempPass MVPDs too.
    static func dialog(_ api: AsyncAccessEnabler.ServiceAPI) -> Event {
        .providerDialog(
            api == .v1 ? ["SandboxCable", "SandboxSSO"] : ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"])
    }

    /// Logs in through the page of the last `navigateToUrl` and hands the redirect back, as an app's web view would.
    static func completeWebLogin(_ enabler: AccessEnabler, _ recorder: Recorder, username: String = "viewer") async throws {
        let url = try #require(recorder.lastNavigation)
        guard case .redirect(let redirect) = try await SandboxBrowser().navigate(to: url, username: username, password: "sandbox-password")
        else {
            Issue.record("the login page did not return to the app")
            return
        }
        enabler.handleExternalURL(redirect)
        await enabler.drain()
    }

    @Test("startup: calls made before setRequestorComplete are queued and run in order", arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func startup(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            enabler.getAuthentication()
            enabler.getSelectedProvider()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .requestorComplete(1), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                    Self.dialog(api), .selected(nil),
                ])
            #expect(
                recorder.all.contains {
                    if case .tracking(.authentication, let data) = $0 { data.first == "false" && data.count == 7 } else { false }
                })
        }
    }

    @Test(
        "authentication without SSO: provider dialog → setSelectedProvider → navigateToUrl → handleExternalURL → status 1; cancel resets",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func classicAuthentication(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider(nil)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, "PROVIDER_NOT_SELECTED_ERROR"))

            recorder.reset()
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            #expect(recorder.all.contains(.tracking(.getSelectedProvider, ["SandboxCable", "mobile", "ios", "iOS"])))
            let url = try #require(recorder.lastNavigation)
            #expect(url.path.hasPrefix(api == .v1 ? "/api/v1/authenticate" : "/api/v2/authenticate/tvekit-sandbox/"))
            try await Self.completeWebLogin(enabler, recorder)
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
            enabler.getSelectedProvider()
            enabler.checkAuthentication()
            enabler.getAuthentication()
            await enabler.drain()
            #expect(recorder.flow.suffix(3) == [.selected("SandboxCable"), .authenticationStatus(1, ""), .authenticationStatus(1, "")])
        }
    }

    @Test(
        "authorization: setToken with a verifiable media token, the MVPD's message on denial, checkAuthorization never logs in",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func authorization(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthorization("news")
            await enabler.drain()
            #expect(recorder.flow.last == .failed("news", code: "USER_NOT_AUTHENTICATED_ERROR", description: ""))

            // getAuthorization logs in first, then authorizes.
            recorder.reset()
            enabler.getAuthorization("news")
            await enabler.drain()
            #expect(recorder.flow == [Self.dialog(api)])
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            try await Self.completeWebLogin(enabler, recorder)
            let flow = recorder.flow
            #expect(flow.suffix(2).first == .authenticationStatus(1, ""))
            guard case .token(let token, "news")? = flow.last else { Issue.record("no setToken: \(flow)"); return }
            let verifier = try MediaTokenVerifier(
                trustedKeys: [provider.keys.mediaTokenKey.publicKey], requestorID: "tvekit-sandbox", clock: provider.clock)
            #expect(verifier.verify(token, resourceID: "news").result == .validToken)

            recorder.reset()
            enabler.checkAuthorization("mature-show")
            enabler.checkPreauthorizedResources(["news", "mature-show", "premium-sports"])
            enabler.checkPreauthorizedResources(["news"], cache: false)
            await enabler.drain()
            // REST API v2 sends the Enhanced Error's advanced status first.
            let denial = "Your parental controls block this program."
            #expect(
                recorder.flow
                    == (api == .v2 ? [.status("Z100", denial)] : []) + [
                        .failed("mature-show", code: "USER_NOT_AUTHORIZED_ERROR", description: denial), .preauthorized(["news"]),
                        .preauthorized(["news"]),
                    ])
            #expect(
                recorder.all.contains {
                    if case .tracking(.authorization, let data) = $0 { data.count == 9 && data[0] == "false" } else { false }
                })
        }
    }

    @Test(
        "getMetadata: authentication and authorization TTLs, device ID, user metadata decrypted with the programmer's key",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func metadata(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            try await logIn(enabler, recorder, provider)
            enabler.checkAuthorization("news")
            await enabler.drain()
            recorder.reset()
            enabler.getMetadata(.authenticationTTL)
            enabler.getMetadata(.authorizationTTL(resource: "news"))
            enabler.getMetadata(.deviceID)
            enabler.getMetadata(.userMetadata(key: "zip"))
            enabler.getMetadata(.userMetadata(key: "maxRating"))
            await enabler.drain()
            let events = recorder.flow
            #expect(events.count == 5)
            #expect(events[3] == .metadata(.array([.string("12345")]), encrypted: false, key: .userMeta))
            if case .metadata(.object(let rating)?, false, .userMeta) = events[4] {
                #expect(rating["MPAA"] == .string("PG-13"))
            } else {
                Issue.record("\(events[4])")
            }
            if case .metadata(.string(let ttl)?, false, .authentication) = events[0] {
                #expect(Int64(ttl) ?? 0 > provider.clock.nowMilliseconds)
            } else {
                Issue.record("\(events[0])")
            }
            if case .metadata(.string(let id)?, false, .deviceID) = events[2] {
                #expect(id.count == 32)
            } else {
                Issue.record("\(events[2])")
            }

            // Without the programmer's key the value arrives encrypted.
            let plainRecorder = Recorder()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(clock: provider.clock, sleep: SleepRecorder().sleep))
            let other = makeEnabler(core, plainRecorder)
            other.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            other.getAuthentication()
            other.setSelectedProvider("SandboxCable")
            await other.drain()
            try await Self.completeWebLogin(other, plainRecorder)
            plainRecorder.reset()
            other.getMetadata(.userMetadata(key: "householdID"))
            await other.drain()
            if case .metadata(.string(let ciphertext)?, true, .userMeta)? = plainRecorder.flow.first {
                #expect(try MetadataDecryptorFactory.make(provider.keys.metadataKey).decryptValue(ciphertext) == .string("hh-0001"))
            } else {
                Issue.record("\(plainRecorder.flow)")
            }
        }
    }

    @Test(
        "logout without SSO: tokens cleared, navigateToUrl to the logout page, handleExternalURL → status 0",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func logout(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            try await logIn(enabler, recorder, provider)
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            if api == .v1 { #expect(page.path == "/api/v1/logout") }
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page) else { Issue.record("no redirect"); return }
            enabler.handleExternalURL(back)
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .navigate(page, useSVC: false), .authenticationStatus(0, ""), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                ])
        }
    }

    @Test(
        "handleSVC: the login page goes through navigateToUrl(_:useSVC: true) (the logout page: ResyncTests)",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func safariViewController(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            enabler.setOptions(.init(applicationProfile: "tvekit-tests", visitorID: "visitor-1", handleSVC: true))
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            guard case .navigate(let url, true)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
            #expect(api == .v2 || url.query?.contains("reg_code=") == true)
        }
    }

    @Test(
        "tvOS second screen: setSelectedProvider → status REGCODE → the code is used elsewhere → polling → status 1",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func secondScreen(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(platform: .tvOS, api: api), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            #expect(code.count == 7)
            // The user opens the second-screen page on a phone.
            var components = URLComponents(url: provider.url.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                .init(name: "requestor_id", value: "tvekit-sandbox"), .init(name: "mso_id", value: "SandboxCable"),
                .init(name: "reg_code", value: code),
            ]
            let v2Page = URL(string: provider.url.absoluteString + "/api/v2/authenticate/tvekit-sandbox/\(code)")
            let outcome = try await SandboxBrowser().navigate(
                to: try #require(api == .v1 ? components?.url : v2Page), username: "viewer", password: "sandbox-password")
            if api == .v1 {
                if case .page(200, let text) = outcome { #expect(text.contains("signed in")) } else { Issue.record("\(outcome)") }
            }
            let done = await recorder.wait { $0 == .authenticationStatus(1, "") }
            #expect(done != nil)
            // tvOS logout: no navigation, status 0 at once.
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "")])
        }
    }
}
