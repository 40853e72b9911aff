import Foundation
import TVEAccessEnabler
import TVEServiceProvider
import TVETokens

extension ScenarioRun {
    /// A service token for `subject`, as the app's identity service would sign it (fresh for each call).
    func serviceToken(_ subject: String) -> SingleSignOnCredential? {
        let token = try? SingleSignOnToken.issue(
            issuer: "identity.tvekit.test", subject: subject, issuedAt: sandbox.clock.nowMilliseconds / 1000,
            signingKey: sandbox.keys.serviceTokenKey)
        return token.map { .serviceToken($0.jwt.compact) }
    }

    /// Picks `mvpd` in the provider dialog after getAuthentication.
    func pick(_ mvpd: String, _ enabler: AccessEnabler, _ delegate: RecordingDelegate) async throws {
        narrator.call("getAuthentication()")
        enabler.getAuthentication()
        let mvpds = try await delegate.next("displayProviderDialog") { if case .providerDialog(let ids) = $0 { ids } else { nil } }
        try expect(mvpds.contains(mvpd), "\(mvpd) is not offered")
        narrator.call("setSelectedProvider(\(mvpd))")
        enabler.setSelectedProvider(mvpd)
    }

    func serviceTokenSSO() async throws {
        // One service token per call, as an identity service's SDK hands them out; each is bound to its device.
        let phoneToken = serviceToken("viewer-jane")
        let (phone, phoneDelegate) = make(singleSignOn: { phoneToken })
        narrator.note("the phone's app sends the viewer's AD-Service-Token with every call")
        try await setRequestor(phone, phoneDelegate)
        try await pick("SandboxCable", phone, phoneDelegate)
        let url = try await phoneDelegate.next("navigateToUrl") { if case .navigate(let url, _) = $0 { url } else { nil } }
        narrator.note("the web view signs in as viewer on the MVPD's page")
        guard case .redirect(let back) = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
        else {
            throw SandboxError(.navigationFailed, "the login did not return to the app")
        }
        narrator.call("handleExternalURL(\(back.absoluteString))")
        phone.handleExternalURL(back)
        try expect(
            try await phoneDelegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "the phone's login failed")

        let tvToken = serviceToken("viewer-jane")
        let (tv, tvDelegate) = make(platform: .tvOS, singleSignOn: { tvToken })
        narrator.note("a TV app of the same viewer sends its own AD-Service-Token")
        try await setRequestor(tv, tvDelegate)
        narrator.note("single sign-on: setRequestor found the viewer's profile (serviceTokenSSO), no login page, no code")
        narrator.call("checkAuthentication()")
        tv.checkAuthentication()
        try expect(try await tvDelegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1, "the TV was not signed in")
        narrator.call("getMetadata(userMetadata: tokenSource)")
        tv.getMetadata(.userMetadata(key: "tokenSource"))
        let source = try await tvDelegate.next("setMetadataStatus") { Self.metadataValue($0) }
        try expect(source != nil, "the TV's profile names no tokenSource")
        try await authorizeAndVerify("news", tv, tvDelegate)
        narrator.call("logout()")
        tv.logout()
        narrator.note("a TV opens no page: the logout ends single sign-on for the viewer, on the phone too")
        try expect(try await tvDelegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 0, "logout did not end")
    }

    func degradedAccess() async throws {
        let (enabler, delegate) = make()
        try await setRequestor(enabler, delegate)
        narrator.note("Sandbox Cable is down: Adobe's operators switch degraded access on for it")
        sandbox.degradedAccess.begin(mvpd: "SandboxCable")
        defer { sandbox.degradedAccess.end(mvpd: "SandboxCable") }
        try await pick("SandboxCable", enabler, delegate)
        narrator.note("the session answers authorize (degraded): no login page")
        try expect(
            try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) } == 1,
            "degraded access did not authenticate")
        // The MVPD would deny premium-sports; the degradation rule decides instead.
        try await authorizeAndVerify("premium-sports", enabler, delegate)
        narrator.note("Sandbox Cable is back: degraded access goes off")
        sandbox.degradedAccess.end(mvpd: "SandboxCable")
        narrator.call("logout()")
        enabler.logout()
        _ = try await delegate.next("setAuthenticationStatus") { Self.authenticationStatus($0) }
    }
}
