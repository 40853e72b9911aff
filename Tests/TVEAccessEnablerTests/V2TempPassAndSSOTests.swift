import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVEPassAPIv2
import TVESandbox
import TVEServiceProvider

/// TempPass and Apple single sign-on over REST API v2, with the fallbacks to the classic picker.
@Suite("AccessEnabler over REST API v2: TempPass and Apple single sign-on")
struct V2TempPassAndSSOTests {
    @Test(
        "TempPass: setSelectedProvider authenticates at once (no page, no code, no later getAuthentication), on iOS and tvOS",
        arguments: EntitlementPlatform.allCases)
    func tempPassStarts(platform: EntitlementPlatform) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(platform: platform), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            recorder.reset()
            enabler.setSelectedProvider("SandboxTempPass")
            enabler.checkAuthorization("news")
            enabler.getSelectedProvider()
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count == 3, case .token = flow[1] else { Issue.record("\(flow)"); return }
            #expect(flow[0] == .authenticationStatus(1, ""))
            #expect(flow[2] == .selected("SandboxTempPass"))
            #expect(
                recorder.all.contains {
                    $0 == .tracking(.getSelectedProvider, ["SandboxTempPass"] + DelegateTranslator(platform: platform).platformFields)
                })
        }
    }

    @Test("tempPassExpiry: after its hour the pass is gone; picking it again gives N111, status 0 and the picker without it")
    func tempPassExpires() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let core = provider.v2Enabler()
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxTempPass")
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
            let pass = try await core.checkAuthentication()
            #expect(pass.expires == provider.clock.nowMilliseconds + 3_600_000)

            provider.clock.advance(seconds: 3601)
            recorder.reset()
            enabler.checkAuthentication()
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxTempPass")
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count == 5, case .status("N111", _) = flow[2] else { Issue.record("\(flow)"); return }
            #expect(flow[0] == .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"))
            #expect(flow[3] == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"))
            #expect(flow[4] == .providerDialog(["SandboxCable", "SandboxSSO", "SandboxPromoPass"]))
        }
    }

    @Test("promotional TempPass: the data of getAuthentication:withData: go as AP-TempPass-Identity; without them it is refused")
    func promotionalTempPass() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxPromoPass")
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"))

            recorder.reset()
            enabler.getAuthentication(withData: ["email": "viewer@example.com"])
            enabler.setSelectedProvider("SandboxPromoPass")
            enabler.checkAuthorization("news")
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count == 3, case .token = flow[2] else { Issue.record("\(flow)"); return }
            #expect(flow[1] == .authenticationStatus(1, ""))
            let session = try #require(transport.sent("/api/v2/tvekit-sandbox/sessions", method: "POST").last)
            let header = try #require(V2CookbookTests.header(session, "AP-TempPass-Identity"))
            #expect(try PassAPIv2.TempPassIdentity(header: header).values == ["email": "viewer@example.com"])
        }
    }

    @Test(
        "Apple SSO over v2: sessions/sso/Apple, the platform's SAML response to profiles/sso/Apple, status 1, tokenSource Apple; logout is partner_logout: VSA203 and the MVPD's page"
    )
    func appleSSO() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let recorder = Recorder()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    transport: transport, clock: provider.clock,
                    metadataDecryptor: MetadataDecryptorFactory.make(provider.keys.metadataKey),
                    sleep: SleepRecorder().sleep, tvProviderAccount: PlatformSSOTests.account(provider)))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.getMetadata(.userMetadata(key: "tokenSource"))
            await enabler.drain()
            #expect(
                recorder.flow.suffix(4) == [
                    .present, .dismiss, .authenticationStatus(1, ""), .metadata(.string("Apple"), encrypted: false, key: .userMeta),
                ])
            let partnerSession = try #require(transport.sent("/sessions/sso/Apple", method: "POST").first)
            let status = try PassAPIv2.PartnerFrameworkStatus(
                header: try #require(V2CookbookTests.header(partnerSession, PassAPIv2.PartnerFrameworkStatus.headerName)))
            #expect(status.frameworkPermissionInfo?.accessStatus == "granted" && status.frameworkProviderInfo?.id == "sandbox-sso")
            #expect(transport.sent("/profiles/sso/Apple", method: "POST").count == 1)
            #expect(try await core.checkAuthentication().platformSSO)

            recorder.reset()
            enabler.logout()
            await enabler.drain()
            // partner_logout with the MVPD's page: VSA203, then the page, which returns to the app.
            #expect(recorder.flow.first == .status("VSA203", AdvancedStatus.signOutInSettings.message))
            let page = try #require(recorder.lastNavigation)
            #expect(page.path == "/idp/SandboxSSO/logout")
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page) else { Issue.record("no redirect"); return }
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, ""))
        }
    }

    @Test("Apple SSO over v2, silently at setRequestor when the account is signed in")
    func silentSSO() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = PlatformSSOTests.enabler(
                provider, recorder, account: PlatformSSOTests.account(provider, signedIn: PlatformSSOTests.ssoSignIn), api: .v2)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(recorder.flow == [.requestorComplete(1), .authenticationStatus(1, "")])
        }
    }

    @Test(
        "the service provider's fallbacks (pfs_fallback, configuration_fallback): VSA503 and the classic picker",
        arguments: ["pfs_fallback", "configuration_fallback"])
    func serviceProviderFallbacks(reason: String) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let body = """
                {"actionName":"authenticate","actionType":"interactive","code":"ABC1234","reasonType":"\(reason)",\
                "serviceProvider":"tvekit-sandbox","sessionId":"s-1","url":"/api/v2/authenticate/tvekit-sandbox/ABC1234"}
                """
            transport.on("POST", "/sessions/sso/Apple", .status(200, body: body))
            let recorder = Recorder()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep,
                    tvProviderAccount: PlatformSSOTests.account(provider)))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count >= 2, case .status("VSA503", let message) = flow[flow.count - 2] else { Issue.record("\(flow)"); return }
            #expect(message.contains(reason))
            #expect(flow.last == .providerDialog(["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"]))
            #expect(transport.sent("/profiles/sso/Apple").isEmpty)
        }
    }

    @Test(
        "a SUPPORTED provider with platform services off, picked in the platform picker: N004 and the classic picker (the SSO cookbook)",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func supportedWithoutPlatformServices(api: AsyncAccessEnabler.ServiceAPI) async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].boardingStatus = "SUPPORTED"
        configuration.mvpds[0].platformMappingId = "sandbox-cable"
        configuration.mvpds[0].enablePlatformServices = false
        try await withLocalProvider(configuration) { provider in
            let recorder = Recorder()
            let account = PlatformSSOTests.account(
                provider,
                picker: { _ in .select(.init(providerIdentifier: "sandbox-cable", username: "viewer", password: "sandbox-password")) })
            let enabler = PlatformSSOTests.enabler(provider, recorder, account: account, api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.suffix(4).dropLast() == [.present, .dismiss, .status("N004", AdvancedStatus.unsupportedProvider.message)])
            guard case .providerDialog? = flow.last else { Issue.record("\(flow)"); return }
        }
    }

    @Test(
        "a picker-only provider chosen in the platform picker: mvpdSelection tracking as setSelectedProvider sends, and the getAuthentication data go with its login (v1) or are named as not sent (v2)",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func pickerOnlyTrackingAndData(api: AsyncAccessEnabler.ServiceAPI) async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].boardingStatus = "PICKER"
        configuration.mvpds[0].platformMappingId = "sandbox-cable"
        try await withLocalProvider(configuration) { provider in
            let recorder = Recorder()
            let account = PlatformSSOTests.account(
                provider,
                picker: { _ in .select(.init(providerIdentifier: "sandbox-cable", username: "viewer", password: "sandbox-password")) })
            let enabler = PlatformSSOTests.enabler(provider, recorder, account: account, api: api)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication(withData: ["campaign": "winter"])
            await enabler.drain()
            let fields = DelegateTranslator(platform: .iOS).platformFields
            #expect(recorder.all.contains(.tracking(.getSelectedProvider, ["SandboxCable"] + fields)))
            let page = try #require(recorder.lastNavigation)
            if api == .v1 {
                #expect(page.query?.contains("generic_data=") == true && page.query?.contains("winter") == true)
            } else {
                // REST API v2 has no place for them: the app is told once, by key, never the value.
                let notes = recorder.flow.compactMap { if case .status("DATA_NOT_SENT", let message) = $0 { message } else { nil } }
                #expect(notes.count == 1 && notes[0].contains("campaign") && !notes[0].contains("winter"))
            }
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
        }
    }
}
