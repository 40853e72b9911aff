import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox
import TVEServiceProvider

/// The Apple SSO cookbook through the delegate API, with a simulated TV-provider account backed by the sandbox IdP.
@Suite("AccessEnabler delegate API: platform single sign-on")
struct PlatformSSOTests {
    static let ssoSignIn = SandboxTVProviderAccount.SignIn(
        providerIdentifier: "sandbox-sso", username: "sso-viewer", password: "sandbox-password")

    static func enabler(
        _ provider: LocalProvider, _ recorder: Recorder, account: SandboxTVProviderAccount,
        platform: EntitlementPlatform = .iOS, api: AsyncAccessEnabler.ServiceAPI = .v1
    ) -> AccessEnabler {
        let core = AsyncAccessEnabler(
            softwareStatement: provider.softwareStatement,
            configuration: .init(
                clock: provider.clock, platform: platform, metadataDecryptor: MetadataDecryptorFactory.make(provider.keys.metadataKey),
                pollingInterval: .milliseconds(50), sleep: SleepRecorder().sleep, tvProviderAccount: account, api: api))
        return makeEnabler(core, recorder)
    }

    static func account(
        _ provider: LocalProvider, access: TVProviderAccessStatus = .granted, signedIn: SandboxTVProviderAccount.SignIn? = nil,
        picker: @escaping @Sendable (TVProviderMetadataRequest) -> SandboxTVProviderAccount.PickerChoice = { _ in .select(ssoSignIn) }
    )
        -> SandboxTVProviderAccount
    {
        SandboxTVProviderAccount(
            serviceProvider: provider.url, mvpdForProvider: ["sandbox-sso": "SandboxSSO", "sandbox-cable": "SandboxCable"],
            access: access, signedIn: signedIn, picker: picker)
    }

    @Test(
        "SSO on iOS: getAuthentication → presentTvProviderDialog → pick → dismiss → status 1; tokenSource Apple; logout reports VSA203",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func pickerLogin(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = Self.enabler(provider, recorder, account: Self.account(provider), api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            enabler.getAuthentication()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .requestorComplete(1), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                    .present, .dismiss, .authenticationStatus(1, ""),
                ])
            recorder.reset()
            enabler.getMetadata(.userMetadata(key: "tokenSource"))
            enabler.getMetadata(.userMetadata(key: "userID"))
            enabler.getSelectedProvider()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .metadata(.string("Apple"), encrypted: false, key: .userMeta),
                    .metadata(.string("u-0002"), encrypted: false, key: .userMeta), .selected("SandboxSSO"),
                ])
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            #expect(recorder.flow.first == .status("VSA203", AdvancedStatus.signOutInSettings.message))
            guard case .navigate? = recorder.flow.last else { Issue.record("iOS logout should navigate: \(recorder.flow)"); return }
        }
    }

    @Test(
        "SSO silently at setRequestor: a signed-in, permitted, boarded provider is exchanged with no UI; checkAuthentication → 1",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func silentExchange(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let account = Self.account(provider, signedIn: Self.ssoSignIn)
            let enabler = Self.enabler(provider, recorder, account: account, api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(recorder.flow == [.requestorComplete(1), .authenticationStatus(1, "")])
            #expect(account.presented.isEmpty)
        }
    }

    @Test(
        "SSO permission denied, undetermined or failing: VSA403 / VSA404 / APPL_ERROR at setRequestor, then the classic dialog; none once authenticated",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func permissions(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            for (access, startup, interactive) in [
                (TVProviderAccessStatus.denied, "VSA403", "VSA403"), (.undetermined, "VSA404", "VSA404"),
                (.failed("no framework"), "APPL_ERROR", "VSA503"),
            ] {
                let recorder = Recorder()
                let enabler = Self.enabler(
                    provider, recorder, account: Self.account(provider, access: access, signedIn: Self.ssoSignIn), api: api)
                enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
                enabler.getAuthentication()
                await enabler.drain()
                let ids = recorder.flow.compactMap { if case .status(let id, _) = $0 { id } else { nil } }
                #expect(ids == [startup, interactive], "\(access)")
                #expect(recorder.flow.contains(.requestorComplete(1)))
                #expect(recorder.flow.last == DelegateFlowTests.dialog(api))

                // Once logged in the classic way, checkAuthentication says so and nothing about the permission.
                enabler.setSelectedProvider("SandboxCable")
                await enabler.drain()
                try await DelegateFlowTests.completeWebLogin(enabler, recorder)
                recorder.reset()
                enabler.checkAuthentication()
                await enabler.drain()
                #expect(recorder.flow == [.authenticationStatus(1, "")], "\(access)")
            }
        }
    }

    @Test(
        "SSO picker outcomes: Other TV Provider → N003, an unsupported provider → N004, cancel → N005, each with the classic dialog",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func pickerFallbacks(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let choices: [(SandboxTVProviderAccount.PickerChoice, String)] = [
                (.otherProvider, "N003"),
                (.select(.init(providerIdentifier: "unknown-provider", username: "x", password: "y")), "N004"),
                (.cancel, "N005"),
            ]
            for (choice, id) in choices {
                let recorder = Recorder()
                let enabler = Self.enabler(provider, recorder, account: Self.account(provider, picker: { _ in choice }), api: api)
                enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
                enabler.getAuthentication()
                await enabler.drain()
                let flow = recorder.flow
                #expect(
                    flow.suffix(4) == [
                        .present, .dismiss, .status(id, flow.compactMap { if case .status(id, let m) = $0 { m } else { nil } }.first ?? ""),
                        DelegateFlowTests.dialog(api),
                    ], "\(id): \(flow)")
            }
        }
    }

    @Test(
        "SSO with a picker-only provider: it is selected silently and its login page opens, with no status code; both filters keep their order",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func pickerOnlyProvider(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].boardingStatus = "PICKER"
        configuration.mvpds[0].platformMappingId = "sandbox-cable"
        try await withLocalProvider(configuration) { provider in
            let requests = Locked<[TVProviderMetadataRequest]>([])
            let recorder = Recorder()
            let account = Self.account(
                provider,
                picker: { request in
                    requests.withLock { $0.append(request) }
                    return .select(.init(providerIdentifier: "sandbox-cable", username: "viewer", password: "sandbox-password"))
                })
            let enabler = Self.enabler(provider, recorder, account: account, api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication(filter: [
                "TV_PROVIDERS": ["SandboxSSO", "Nope", "SandboxCable"], "FEATURED_TV_PROVIDERS": ["SandboxCable"],
            ])
            await enabler.drain()
            #expect(requests.withLock { $0.first?.providerIdentifiers } == ["sandbox-sso", "sandbox-cable"])
            #expect(requests.withLock { $0.first?.featuredProviderIdentifiers } == ["sandbox-cable"])
            let flow = recorder.flow
            #expect(!flow.contains { if case .status = $0 { true } else { false } })
            guard case .navigate(let url, false)? = flow.last else { Issue.record("\(flow)"); return }
            #expect(api == .v2 ? url.path.hasPrefix("/api/v2/authenticate/") : url.query?.contains("mso_id=SandboxCable") == true)
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)
            #expect(recorder.flow.last == .authenticationStatus(1, ""))

            // The legacy array filter: the picker shows those MVPDs, in that order, and features none.
            enabler.logout()
            await enabler.drain()
            requests.withLock { $0 = [] }
            enabler.getAuthentication(forceAuthn: true, withData: [:], filter: ["SandboxCable", "SandboxSSO"])
            await enabler.drain()
            #expect(requests.withLock { $0.first?.providerIdentifiers } == ["sandbox-cable", "sandbox-sso"])
            #expect(requests.withLock { $0.first?.featuredProviderIdentifiers } == [])
        }
    }

    @Test(
        "SSO on tvOS: the picker's boarded provider is exchanged (status 1); a classic pick shows a registration code",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func tvOS(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = Self.enabler(provider, recorder, account: Self.account(provider), platform: .tvOS, api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            #expect(recorder.flow.suffix(3) == [.present, .dismiss, .authenticationStatus(1, "")])
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            #expect(
                recorder.flow == [.status("VSA203", AdvancedStatus.signOutInSettings(on: .tvOS).message), .authenticationStatus(0, "")])

            let other = Recorder()
            let fallback = Self.enabler(
                provider, other, account: Self.account(provider, picker: { _ in .otherProvider }), platform: .tvOS, api: api)
            fallback.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            fallback.getAuthentication()
            fallback.setSelectedProvider("SandboxCable")
            await fallback.drain()
            #expect(other.lastRegistrationCode?.count == 7)
        }
    }
}
