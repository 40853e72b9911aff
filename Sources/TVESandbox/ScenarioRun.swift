import Foundation
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVETokens

/// The walks of ``SandboxScenario``: an app on the delegate API, a web view (``SandboxBrowser``) and a player's back end.
struct ScenarioRun: Sendable {
    let sandbox: Sandbox
    let narrator: ScenarioNarrator
    let api: AsyncAccessEnabler.ServiceAPI

    func make(
        platform: EntitlementPlatform = .iOS, account: (any TVProviderAccountProvider)? = nil,
        singleSignOn: (@Sendable () async -> SingleSignOnCredential?)? = nil
    ) -> (AccessEnabler, RecordingDelegate) {
        let core = sandbox.accessEnabler {
            $0.platform = platform
            $0.tvProviderAccount = account
            $0.api = api
            $0.singleSignOnCredential = singleSignOn
        }
        let enabler = AccessEnabler(core: core)
        let narrator = self.narrator
        let delegate = RecordingDelegate(onEvent: { event in
            if case .tracking = event { return }
            narrator.callback(event)
        })
        enabler.delegate = delegate
        enabler.statusDelegate = delegate
        return (enabler, delegate)
    }

    func expect(_ condition: Bool, _ what: String) throws(SandboxError) {
        guard condition else { throw SandboxError(.scenarioFailed, what) }
    }

    func setRequestor(_ enabler: AccessEnabler, _ delegate: RecordingDelegate) async throws {
        narrator.call("setRequestor(\(Sandbox.requestor), [\(sandbox.url.absoluteString)])")
        enabler.setRequestor(Sandbox.requestor, serviceProviders: [sandbox.url])
        try expect(try await delegate.next("setRequestorComplete") { Self.requestorStatus($0) } == 1, "setRequestor failed")
    }

    static func requestorStatus(_ event: EntitlementEvent) -> Int? { if case .requestorComplete(let s) = event { s } else { nil } }
    static func authenticationStatus(_ event: EntitlementEvent) -> Int? {
        if case .authenticationStatus(let s, _) = event { s } else { nil }
    }
    static func metadataValue(_ event: EntitlementEvent) -> JSONValue?? {
        if case .metadata(let value, _, _) = event { value } else { nil }
    }

    /// An MRSS resource for an episode of the `news` channel, as a programmer's app may ask for it.
    static let newsEpisode =
        #"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>news</title>"#
        + #"<item><title>Evening news</title><guid>news-2026-11-25</guid><media:rating scheme="urn:v-chip">tv-g</media:rating></item></channel></rss>"#

    /// checkAuthorization → setToken, and the token checked as a player's back end would (for `playing`, the
    /// resource it is about to play; the requested resource by default).
    func authorizeAndVerify(_ resource: String, playing: String? = nil, _ enabler: AccessEnabler, _ delegate: RecordingDelegate)
        async throws
    {
        narrator.call("checkAuthorization(\(EntitlementEvent.shown(resource)))")
        enabler.checkAuthorization(resource)
        let token = try await delegate.next("setToken") { if case .token(let token, _) = $0 { token } else { nil } }
        let parsed = try ShortMediaToken(parsing: token)
        narrator.note(
            "the media token: <\(parsed.form.root.rawValue)>, issueTime \(parsed.issueTimeText), signatureInfo \(parsed.form.signatureInfoEnd.rawValue)"
        )
        let verifier = try MediaTokenVerifier(trustedKeys: [sandbox.keys.mediaTokenKey.publicKey], requestorID: Sandbox.requestor)
        let verification = verifier.verify(token, resourceID: playing ?? resource)
        narrator.note("MediaTokenVerifier(resourceID: \(EntitlementEvent.shown(playing ?? resource))): \(verification.result.rawValue)")
        try expect(verification.isValid, "the media token did not verify: \(verification.result.rawValue)")
    }

    /// The iOS logout: the web view follows the logout page back to the app, which hands the redirect over.
    func followLogoutPage(_ enabler: AccessEnabler, _ delegate: RecordingDelegate) async throws {
        let page = try await delegate.next("navigateToUrl") { if case .navigate(let url, _) = $0 { url } else { nil } }
        guard case .redirect(let after) = try await SandboxBrowser().navigate(to: page) else {
            throw SandboxError(.navigationFailed, "the logout page did not return to the app")
        }
        narrator.call("handleExternalURL(\(after.absoluteString))")
        enabler.handleExternalURL(after)
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 0, "logout did not end")
    }

    func classic() async throws {
        let (enabler, delegate) = make()
        try await setRequestor(enabler, delegate)
        narrator.call("checkAuthentication()")
        enabler.checkAuthentication()
        _ = try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) }
        narrator.call("getAuthentication()")
        enabler.getAuthentication()
        let mvpds = try await delegate.next("displayProviderDialog") { if case .providerDialog(let ids) = $0 { ids } else { nil } }
        try expect(mvpds.contains("SandboxCable"), "SandboxCable is not offered")
        narrator.call("setSelectedProvider(SandboxCable)")
        enabler.setSelectedProvider("SandboxCable")
        let url = try await delegate.next("navigateToUrl") { if case .navigate(let url, _) = $0 { url } else { nil } }
        narrator.note("the web view signs in as viewer on the MVPD's page")
        guard case .redirect(let back) = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
        else {
            throw SandboxError(.navigationFailed, "the login did not return to the app")
        }
        narrator.call("handleExternalURL(\(back.absoluteString))")
        enabler.handleExternalURL(back)
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "the authentication failed")
        narrator.call("checkPreauthorizedResources([news, mature-show, premium-sports])")
        enabler.checkPreauthorizedResources(["news", "mature-show", "premium-sports"])
        let allowed = try await delegate.next("preauthorizedResources") { if case .preauthorized(let list) = $0 { list } else { nil } }
        try expect(allowed == ["news"], "preauthorization gave \(allowed)")
        try await authorizeAndVerify("news", enabler, delegate)
        // An MRSS resource: the token carries the document in CDATA, and a player that plays the channel accepts it.
        try await authorizeAndVerify(Self.newsEpisode, playing: "news", enabler, delegate)
        narrator.call("checkAuthorization(mature-show)")
        enabler.checkAuthorization("mature-show")
        _ = try await delegate.next("tokenRequestFailed") { if case .failed(_, let code, _) = $0 { code } else { nil } }
        for key in ["zip", "householdID", "maxRating"] {
            narrator.call("getMetadata(userMetadata: \(key))")
            enabler.getMetadata(.userMetadata(key: key))
            let value = try await delegate.next("setMetadataStatus") { Self.metadataValue($0) }
            try expect(value != nil, "no \(key)")
        }
        narrator.call("logout()")
        enabler.logout()
        try await followLogoutPage(enabler, delegate)
    }

    func platformSSO() async throws {
        let account = SandboxTVProviderAccount(
            serviceProvider: sandbox.url, mvpdForProvider: ["sandbox-sso": "SandboxSSO"], access: .granted,
            picker: { _ in .select(.init(providerIdentifier: "sandbox-sso", username: "sso-viewer", password: "sandbox-password")) })
        let (enabler, delegate) = make(account: account)
        narrator.note("the TV-provider account: access granted, not signed in yet")
        try await setRequestor(enabler, delegate)
        narrator.call("getAuthentication()")
        enabler.getAuthentication()
        _ = try await delegate.next("presentTvProviderDialog") { if case .present = $0 { true } else { nil } }
        narrator.note("the user picks Sandbox SSO in the platform picker")
        _ = try await delegate.next("dismissTvProviderDialog") { if case .dismiss = $0 { true } else { nil } }
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "the token exchange failed")
        narrator.call("getMetadata(userMetadata: tokenSource)")
        enabler.getMetadata(.userMetadata(key: "tokenSource"))
        let source = try await delegate.next("setMetadataStatus") { Self.metadataValue($0) }
        try expect(source == .string("Apple"), "tokenSource is not Apple")
        narrator.call("logout()")
        enabler.logout()
        let status = try await delegate.next("status") { if case .status(let id, _) = $0 { id } else { nil } }
        try expect(status == "VSA203", "no VSA203 after an SSO logout")
        // REST API v2 answers partner_logout with the MVPD's page, as v1 sends the app to its logout page.
        try await followLogoutPage(enabler, delegate)
    }

    func secondScreen() async throws {
        let (enabler, delegate) = make(platform: .tvOS)
        try await setRequestor(enabler, delegate)
        narrator.call("getAuthentication()")
        enabler.getAuthentication()
        _ = try await delegate.next("displayProviderDialog") { if case .providerDialog(let ids) = $0 { ids } else { nil } }
        narrator.call("setSelectedProvider(SandboxCable)")
        enabler.setSelectedProvider("SandboxCable")
        let code = try await delegate.next("status") { if case .status("REGCODE", let code) = $0 { code } else { nil } }
        let url: URL?
        switch api {
        case .v1:
            var components = URLComponents(url: sandbox.url.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                .init(name: "requestor_id", value: Sandbox.requestor), .init(name: "mso_id", value: "SandboxCable"),
                .init(name: "reg_code", value: code),
            ]
            url = components?.url
        case .v2:
            // The session's page, as the activation page on the phone opens it for the code.
            url = URL(string: sandbox.url.absoluteString + "/api/v2/authenticate/\(Sandbox.requestor)/\(code)")
        }
        guard let url else { throw SandboxError(.navigationFailed, "bad second-screen URL") }
        narrator.note("on a phone: \(url.path)\(api == .v1 ? "?…reg_code=\(code)" : ""), signing in as viewer")
        _ = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
        try expect(
            try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1,
            "the TV did not see the second-screen login")
        narrator.call("getSelectedProvider()")
        enabler.getSelectedProvider()
        let selected = try await delegate.next("selectedProvider") { if case .selected(let id) = $0 { id as String?? } else { nil } }
        try expect(selected == "SandboxCable", "the selected provider is not SandboxCable")
        try await authorizeAndVerify("news", enabler, delegate)
        // tvOS has no logout page: the logout ends at once.
        narrator.call("logout()")
        enabler.logout()
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 0, "logout did not end")
    }

    func tempPass() async throws {
        let (enabler, delegate) = make()
        try await setRequestor(enabler, delegate)
        narrator.call("getAuthentication()")
        enabler.getAuthentication()
        let mvpds = try await delegate.next("displayProviderDialog") { if case .providerDialog(let ids) = $0 { ids } else { nil } }
        try expect(mvpds.contains("SandboxTempPass"), "SandboxTempPass is not offered")
        narrator.call("setSelectedProvider(SandboxTempPass)")
        enabler.setSelectedProvider("SandboxTempPass")
        narrator.note("a TempPass needs no login page: authenticated at once")
        try expect(
            try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "TempPass did not authenticate")
        narrator.call("getMetadata(authenticationTTL)")
        enabler.getMetadata(.authenticationTTL)
        _ = try await delegate.next("setMetadataStatus") { Self.metadataValue($0) }
        try await authorizeAndVerify("news", enabler, delegate)
        narrator.call("logout()")
        enabler.logout()
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 0, "logout did not end")

        narrator.call("getAuthentication(withData: [email: viewer@example.com])")
        enabler.getAuthentication(withData: ["email": "viewer@example.com"])
        _ = try await delegate.next("displayProviderDialog") { if case .providerDialog(let ids) = $0 { ids } else { nil } }
        narrator.call("setSelectedProvider(SandboxPromoPass)")
        enabler.setSelectedProvider("SandboxPromoPass")
        narrator.note("a promotional TempPass: the data go as AP-TempPass-Identity")
        try expect(
            try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "the promotional TempPass failed")
        try await authorizeAndVerify("news", enabler, delegate)
        narrator.call("logout()")
        enabler.logout()
        try expect(try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 0, "logout did not end")
    }
}
