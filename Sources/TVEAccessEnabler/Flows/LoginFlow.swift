import Foundation
import TVETokens

/// The classic login: `getAuthentication`, the MVPD picked (`setSelectedProvider`) and the authentication that ends
/// it, from the redirect of the login page (iOS) or from the registration code used on a second screen (tvOS). The
/// login in progress is kept in the ``SessionStore``.
struct LoginFlow {
    let configuration: AsyncAccessEnabler.Configuration
    let setup: RequestorSetup
    let session: SessionStore
    let serial: SerialQueue

    /// `getAuthentication(forceAuthn:)`: the stored authentication unless `forceAuthn`, else the MVPDs to pick from.
    func start(forceAuthn: Bool) throws(AccessEnablerError) -> AsyncAccessEnabler.AuthenticationStep {
        if !forceAuthn, let authentication = try session.current().authentication { return .authenticated(authentication) }
        session.pendingLogin = nil
        session.forcingLogin = forceAuthn
        guard !setup.mvpds.isEmpty else { throw AccessEnablerError(.providerNotAvailable, "no MVPD is offered to this requestor") }
        return .selectProvider(setup.mvpds)
    }

    /// `setSelectedProvider` (the caller holds the serial queue): `nil` cancels the login; an MVPD gets a registration
    /// code and becomes the login in progress.
    nonisolated(nonsending) func selectProvider(_ mvpdID: String?, data: [String: String]) async throws(AccessEnablerError)
        -> AsyncAccessEnabler.LoginStep
    {
        guard let mvpdID else {
            session.pendingLogin = nil
            session.forcingLogin = false
            throw AccessEnablerError(.providerNotSelected, "no provider was selected")
        }
        let (client, mvpd) = try setup.client(for: mvpdID)
        let deviceID = try await session.load().deviceID
        let forceAuthn = session.forcingLogin
        session.forcingLogin = false
        let start = try await client.startLogin(
            LoginRequest(
                deviceID: deviceID, mvpd: mvpd, redirectURL: configuration.redirectURL, data: data, platform: configuration.platform,
                forceAuthn: forceAuthn))
        switch start {
        case .authenticated(let token):
            // TempPass, or a profile the device already holds: no login page, no later getAuthentication.
            session.pendingLogin = nil
            try await session.storeAuthentication(
                token, mvpd: mvpd, tempPassIdentity: mvpd.isTempPass && !data.isEmpty ? data : nil)
            return .authenticated(token)
        case .login(let code, let page, let notAfter):
            session.pendingLogin = PendingLogin(mvpd: mvpd, code: code, page: page, notAfter: notAfter)
            switch configuration.platform {
            case .tvOS: return .registrationCode(code)
            case .iOS: return .navigate(page, useSVC: setup.options.handleSVC)
            }
        }
    }

    /// Completes the login in progress (the caller holds the serial queue): the service provider's authentication
    /// for the MVPD picked, stored.
    nonisolated(nonsending) func complete() async throws(AccessEnablerError) -> AuthenticationToken {
        guard let mvpd = session.pendingLogin?.mvpd else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let (client, _) = try setup.client(for: mvpd.id)
        let deviceID = try await session.load().deviceID
        let token = try await client.authentication(deviceID: deviceID, mvpd: mvpd, code: nil)
        guard let token else {
            throw AccessEnablerError(.genericAuthentication, "the service provider has no authentication for this device")
        }
        // An authentication left from an earlier login with another MVPD is not this login (a stray redirect).
        guard token.mvpd == mvpd.id else {
            throw AccessEnablerError(.genericAuthentication, "the service provider's authentication is not for the MVPD being logged in to")
        }
        session.pendingLogin = nil
        try await session.storeAuthentication(token, mvpd: mvpd)
        return token
    }

    /// tvOS: polls until the user has logged in on a second screen with the code, or the wait ends. REST API v1:
    /// `tokens/authn` with back-off (the configured interval, doubling up to 10 s) until the polling timeout. REST
    /// API v2: `profiles/code/{code}` every 3–5 s (the configured interval, clamped) until the session's `notAfter` or
    /// the polling timeout, whichever is first. The wait holds nothing; it enters the serial queue only to store what
    /// it found, if the login is still the one in progress.
    nonisolated(nonsending) func waitForSecondScreen() async throws(AccessEnablerError) -> AuthenticationToken {
        guard let pending = session.pendingLogin else { throw AccessEnablerError(.genericAuthentication, "no login is in progress") }
        let mvpd = pending.mvpd
        let (client, _) = try setup.client(for: mvpd.id)
        let deviceID = try await session.load().deviceID
        let isCurrent = { session.pendingLogin == pending }
        let cancelled = AccessEnablerError(.genericAuthentication, "the wait for the second screen was cancelled")
        let v2 = client.api == .v2
        var waited = Duration.zero
        var interval =
            v2 ? min(max(configuration.pollingInterval, .seconds(3)), .seconds(5)) : max(configuration.pollingInterval, .milliseconds(1))
        let limit = configuration.pollingTimeout
        // The session's end on the device's clock (a service provider's value is clamped: it cannot overflow here).
        let ends = pending.notAfter.map { min(max($0, 0), Int64.max / 2) }
        while waited < limit, ends.map({ configuration.clock.nowMilliseconds < $0 }) ?? true {
            if Task.isCancelled { throw cancelled }
            // Only an authentication with the MVPD picked ends the wait (not one left from an earlier login).
            let found: AuthenticationToken?
            do {
                found = try await client.authentication(deviceID: deviceID, mvpd: mvpd, code: v2 ? pending.code : nil)
            } catch  where Self.endsTheWait(error) {
                throw error
            } catch {
                found = nil  // a network failure or a garbled answer: ask again at the next interval
            }
            if let token = found, token.mvpd == mvpd.id {
                return try await serial.run(ifCancelled: cancelled) { () async throws(AccessEnablerError) -> AuthenticationToken in
                    guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
                    session.pendingLogin = nil
                    try await session.storeAuthentication(token, mvpd: mvpd)
                    return token
                }
            }
            guard isCurrent() else { throw AccessEnablerError(.providerNotSelected, "the login was cancelled") }
            await configuration.sleep(interval)
            waited += interval
            if let ends, ends - configuration.clock.nowMilliseconds <= 0 { break }
            if !v2 { interval = min(interval * 2, .seconds(10)) }
        }
        throw AccessEnablerError(.genericAuthentication, "the registration code was not used in time")
    }

    /// An answer that no later poll can change: the service provider refused the session or code with an Enhanced
    /// Error (4xx but 429); a network failure, a 5xx, a throttle or a garbled answer is asked again.
    static func endsTheWait(_ error: AccessEnablerError) -> Bool {
        guard error.enhancedCode != nil, let status = error.httpStatus else { return false }
        return (400..<500).contains(status) && status != 429
    }

    /// `getSelectedProvider`: the MVPD of the login in progress, else the MVPD of the current authentication, else nil.
    func selectedProvider() throws(AccessEnablerError) -> MVPD? {
        let entitlements = try session.current()
        return session.pendingLogin?.mvpd ?? (entitlements.authentication != nil ? entitlements.selectedMVPD : nil)
    }
}
