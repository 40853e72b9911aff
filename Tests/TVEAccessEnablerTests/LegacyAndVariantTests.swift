import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider
import TVETokens

/// The deprecated identities (signed requestor ID, tvOS secret/publicKey) and the remaining method variants.
@Suite("AccessEnabler delegate API: deprecated initialisers and method variants")
struct LegacyAndVariantTests {
    static func legacyEnabler(_ provider: LocalProvider, _ recorder: Recorder, platform: EntitlementPlatform = .iOS) -> AccessEnabler {
        let core = AsyncAccessEnabler(
            configuration: .init(
                clock: provider.clock, platform: platform, pollingInterval: .milliseconds(50),
                sleep: SleepRecorder().sleep, api: .v1))
        return makeEnabler(core, recorder)
    }

    @Test(
        "init() + setRequestor(_:signedRequestorID:): every call carries the signed requestor ID; getAuthenticationToken completes the login"
    )
    func signedRequestorID() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = Self.legacyEnabler(provider, recorder)
            // Without a software statement or a signed requestor ID, setRequestor cannot identify the app.
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .status("R400", "no software statement: use init(softwareStatement:) or setRequestor(_:signedRequestorID:)"),
                    .requestorComplete(0),
                ])
            recorder.reset()
            let signature = try SignedRequestorID.sign("tvekit-sandbox", with: provider.keys.requestorKey)
            enabler.setRequestor("tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            #expect(recorder.flow.prefix(2) == [.requestorComplete(1), DelegateFlowTests.dialog(.v1)])
            let url = try #require(recorder.lastNavigation)
            _ = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
            enabler.getAuthenticationToken()
            enabler.checkAuthorization("news")
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.suffix(2).first == .authenticationStatus(1, ""))
            guard case .token(_, "news")? = flow.last else { Issue.record("\(flow)"); return }

            // A signature by another key is refused by the service provider.
            let forged = Recorder()
            let other = Self.legacyEnabler(provider, forged)
            other.setRequestor(
                "tvekit-sandbox", signedRequestorID: try SignedRequestorID.sign("tvekit-sandbox", with: provider.keys.metadataKey),
                serviceProviders: [provider.url])
            await other.drain()
            #expect(forged.flow.last == .requestorComplete(0))
        }
    }

    @Test(
        "tvOS setRequestor(_:signedRequestorID:secret:publicKey:): clientless HMAC on every call, the second-screen login, a wrong secret refused"
    )
    func clientless() async throws {
        try await withLocalProvider { provider in
            let signature = try SignedRequestorID.sign("tvekit-sandbox", with: provider.keys.requestorKey)
            let recorder = Recorder()
            let enabler = Self.legacyEnabler(provider, recorder, platform: .tvOS)
            enabler.setRequestor(
                "tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url],
                secret: "sandbox-secret", publicKey: "sandbox-public-key")
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            var components = URLComponents(url: provider.url.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                .init(name: "requestor_id", value: "tvekit-sandbox"), .init(name: "mso_id", value: "SandboxCable"),
                .init(name: "reg_code", value: code),
            ]
            _ = try await SandboxBrowser().navigate(to: try #require(components?.url), username: "viewer", password: "sandbox-password")
            #expect(await recorder.wait { $0 == .authenticationStatus(1, "") } != nil)
            enabler.checkAuthorization("news")
            await enabler.drain()
            guard case .token(_, "news")? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }

            let wrong = Recorder()
            let other = Self.legacyEnabler(provider, wrong, platform: .tvOS)
            other.setRequestor(
                "tvekit-sandbox", signedRequestorID: signature, serviceProviders: [provider.url], secret: "guess",
                publicKey: "sandbox-public-key")
            await other.drain()
            #expect(wrong.flow.last == .requestorComplete(0))
        }
    }

    @Test(
        "getAuthentication(forceAuthn:withData:) shows the providers although authenticated and picking the same MVPD opens a fresh login; without a platform account the array filter changes nothing",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases
    )
    func forceAuthnAndArrayFilter(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            try await logIn(enabler, recorder, provider)
            recorder.reset()
            enabler.getAuthentication(forceAuthn: false, withData: ["k": "v"])
            enabler.getAuthentication(forceAuthn: true, withData: ["k": "v"])
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(1, ""), DelegateFlowTests.dialog(api)])

            // The array filter only matters with a platform account; without one, the classic dialog.
            recorder.reset()
            enabler.getAuthentication(forceAuthn: true, withData: [:], filter: ["SandboxSSO"])
            await enabler.drain()
            #expect(recorder.flow == [DelegateFlowTests.dialog(api)])

            // The MVPD the device holds, picked again: a login page, as the SDK's forceAuthn gave (not the old login).
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            guard case .navigate? = recorder.flow.last else { Issue.record("forceAuthn gave no fresh login: \(recorder.flow)"); return }
        }
    }
}
