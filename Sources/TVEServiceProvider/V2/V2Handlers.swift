import Foundation
import OpenAPIRuntime
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

/// The local service provider's REST API v2: the generated contract's ``APIProtocol``, served by the generated
/// server stubs on Hummingbird behind ``V2Gate``. Handlers throw ``ServiceProviderError`` with Adobe's codes; the
/// gate answers them in Adobe's Enhanced Error shape.
struct V2Handlers: APIProtocol {
    let provider: ServiceProvider

    var configuration: ServiceProviderConfiguration { provider.configuration }
    var state: V2State { provider.v2 }
    var now: Int64 { provider.clock.nowMilliseconds }

    /// How long an authentication session (its code) lives: 30 minutes, as Adobe's.
    static let sessionLifetime: Int64 = 1_800_000

    // MARK: Configuration

    /// The requestor and its MVPDs, with the call's `device` type and `os` as Adobe's page shows them: **choice** from
    /// the `User-Agent` (from `X-Device-Info` under ``ServiceProviderConfiguration/strict``), `Unknown` when it says
    /// nothing.
    func handleRequestUsingGET(_ input: Operations.HandleRequestUsingGET.Input) async throws -> Operations.HandleRequestUsingGET.Output {
        let caller = try V2Caller.get()
        let requestor = caller.requestor
        let mvpds = (configuration.mvpds(for: requestor.id) ?? []).map(\.v2Entry)
        let domains = (requestor.domains ?? []).map { Components.Schemas.Domain(mvpdInitiated: false, name: $0) }
        let device = caller.deviceInfo?.info.values ?? V2DeviceInfo.extracted(userAgent: input.headers.userAgent)
        return .ok(
            .init(
                body: .json(
                    .init(
                        device: device["primaryHardwareType"] ?? "Unknown", os: device["osName"] ?? "Unknown",
                        requestor: .init(domains: domains, id: requestor.id, mvpds: mvpds, name: requestor.name ?? requestor.id)))))
    }

    // MARK: Sessions

    func createSessionUsingPOST(_ input: Operations.CreateSessionUsingPOST.Input) async throws -> Operations.CreateSessionUsingPOST.Output {
        let caller = try V2Caller.get()
        let (clientID, deviceID) = try caller.clientDevice()
        var form: Components.Schemas.CreateSessionUsingPOSTRequest?
        if case .urlEncodedForm(let body)? = input.body { form = body }
        let parameters = try SessionParameters(
            form?.mvpd, form?.domainName, form?.redirectUrl, requestor: caller.requestor, provider: provider)
        let now = self.now
        // Already authenticated with this MVPD (or a TempPass started now): no login page.
        if let mvpdID = parameters.mvpd, let direct = try directAuthorization(mvpdID, holder: try caller.holder(), now: now) {
            return .ok(.init(body: .json(direct.answer)))
        }
        var session = V2AuthenticationSession(
            code: "", requestor: caller.requestor.id, clientID: clientID, deviceID: deviceID,
            deviceInfo: V2AuthenticationSession.summary(caller.deviceInfo?.info), mvpd: parameters.mvpd, domainName: parameters.domainName,
            redirectURL: parameters.redirectURL, notBefore: now, notAfter: now + Self.sessionLifetime, profile: nil,
            singleSignOnKey: caller.singleSignOn?.key)
        session = try store(session, now: now)
        return .ok(.init(body: .json(sessionResponse(session))))
    }

    func resumeSessionUsingPOST(_ input: Operations.ResumeSessionUsingPOST.Input) async throws -> Operations.ResumeSessionUsingPOST.Output {
        let caller = try V2Caller.get()
        var form: Components.Schemas.CreateSessionUsingPOSTRequest?
        if case .urlEncodedForm(let body)? = input.body { form = body }
        let now = self.now
        var session = try liveSession(input.path.code, caller: caller, now: now)
        guard session.profile == nil else { throw V2Errors.unknownCode }
        let parameters = try SessionParameters(
            form?.mvpd ?? session.mvpd, form?.domainName ?? session.domainName, form?.redirectUrl ?? session.redirectURL,
            requestor: caller.requestor, provider: provider)
        session.mvpd = parameters.mvpd
        session.domainName = parameters.domainName
        session.redirectURL = parameters.redirectURL
        // The session's device already authenticated with this MVPD (or a TempPass started now): no login page, and
        // the session's code reads the profile (`profiles/code/{code}`).
        var answer = sessionResponse(session, missingAction: "retry")
        if let mvpdID = parameters.mvpd, let direct = try directAuthorization(mvpdID, holder: caller.holder(of: session), now: now) {
            session.profile = direct.profile
            answer = direct.answer
        }
        let updated = session
        let stored = state.sessions.withLock { $0.insert(updated.code, updated, expires: updated.notAfter, now: now) }
        guard stored else { throw ServiceProviderError.busy }
        return .ok(.init(body: .json(answer)))
    }

    func getSessionStatusUsingGET1(_ input: Operations.GetSessionStatusUsingGET1.Input) async throws
        -> Operations.GetSessionStatusUsingGET1.Output
    {
        let caller = try V2Caller.get()
        let session = try liveSession(input.path.code, caller: caller, now: now)
        var existing: [String: String] = ["serviceProvider": session.requestor]
        if let mvpd = session.mvpd { existing["mvpd"] = mvpd }
        if let domain = session.domainName { existing["domainName"] = domain }
        if let redirect = session.redirectURL { existing["redirectUrl"] = redirect }
        let device = Components.Schemas.Device(
            model: session.deviceInfo["model"],
            operatingSystem: .init(name: session.deviceInfo["osName"], vendor: session.deviceInfo["osVendor"]))
        return .ok(
            .init(
                body: .json(
                    .init(
                        device: device, existingParameters: .init(additionalProperties: existing),
                        missingParameters: session.missingParameters, notAfter: .init(milliseconds: session.notAfter),
                        notBefore: .init(milliseconds: session.notBefore)))))
    }

    /// A live session of the caller's requestor, not yet used by a login (or used, for its profile).
    /// Unknown codes count against the caller's address (guessing stops at the limit).
    func liveSession(_ code: String, caller: V2Caller, now: Int64) throws(ServiceProviderError) -> V2AuthenticationSession {
        try provider.attempts.check(.code, caller.address, now: now)
        guard code.utf8.count <= 64,
            case .live(let session, _) = state.sessions.withLock({ $0.lookup(code, now: now) }),
            session.requestor == caller.requestor.id
        else {
            provider.attempts.fail(.code, caller.address, now: now)
            throw V2Errors.unknownCode
        }
        return session
    }

    /// Stores a new session under a fresh code, within the client's quota of device state.
    func store(_ session: V2AuthenticationSession, now: Int64) throws(ServiceProviderError) -> V2AuthenticationSession {
        try provider.attempts.consume(.deviceState, session.clientID, now: now)
        for _ in 0..<4 {
            guard let code = RegistrationCodes.randomCode() else { break }
            let fresh = V2AuthenticationSession(
                code: code, requestor: session.requestor, clientID: session.clientID, deviceID: session.deviceID,
                deviceInfo: session.deviceInfo, mvpd: session.mvpd, domainName: session.domainName, redirectURL: session.redirectURL,
                notBefore: session.notBefore, notAfter: session.notAfter, profile: nil, singleSignOnKey: session.singleSignOnKey)
            let outcome = state.sessions.withLock { table -> Bool? in
                if case .missing = table.lookup(code, now: now) { return table.insert(code, fresh, expires: fresh.notAfter, now: now) }
                return nil
            }
            switch outcome {
            case true?: return fresh
            case false?: throw ServiceProviderError.busy
            case nil: continue
            }
        }
        throw ServiceProviderError.busy
    }

    /// The answer of a session: `authenticate` (`interactive`) with the login URL when complete, else `missingAction`
    /// (`direct`) with what is missing and the session's URL to resume it at: `resume` for a new session, `retry` for
    /// a resumed one, as Adobe's pages name them.
    func sessionResponse(_ session: V2AuthenticationSession, missingAction: String = "resume") -> Components.Schemas.SessionResponse {
        let missing = session.missingParameters
        let requestor = FormCodec.percentEncode(session.requestor)
        return Components.Schemas.SessionResponse(
            actionName: missing.isEmpty ? "authenticate" : missingAction, actionType: missing.isEmpty ? "interactive" : "direct",
            code: session.code, missingParameters: missing.isEmpty ? nil : missing, mvpd: session.mvpd,
            notAfter: .init(milliseconds: session.notAfter), notBefore: .init(milliseconds: session.notBefore), reasonType: "none",
            serviceProvider: session.requestor, sessionId: UUID().uuidString.lowercased(),
            url: missing.isEmpty
                ? "\(PassAPIv2.pathPrefix)/authenticate/\(requestor)/\(session.code)"
                : "\(PassAPIv2.pathPrefix)/\(requestor)/sessions/\(session.code)")
    }

    /// The answer of a session that needs no login: `authorize` (`direct`), with the decisions URL of `mvpd`.
    func authorizeAnswer(_ mvpd: String, reason: String, requestor: String) -> Components.Schemas.SessionResponse {
        .init(
            actionName: "authorize", actionType: "direct", mvpd: mvpd, reasonType: reason, serviceProvider: requestor,
            sessionId: UUID().uuidString.lowercased(),
            url: "\(PassAPIv2.pathPrefix)/\(FormCodec.percentEncode(requestor))/decisions/authorize/\(FormCodec.percentEncode(mvpd))")
    }

    /// The answer of a session that needs no login, with the profile the session's code then reads: the device already
    /// has a profile with `mvpdID` (`authenticated`, or `temporary` for a TempPass), its single-sign-on identity has one
    /// (`authenticatedSSO`), degraded access authenticates all (`degraded`; the profile is the rule's, read live), or
    /// `mvpdID` is a TempPass (started at its first use; no profile when it is misconfigured); nil when a login is needed.
    func directAuthorization(_ mvpdID: String, holder: V2Holder, now: Int64) throws(ServiceProviderError)
        -> (answer: Components.Schemas.SessionResponse, profile: V2Profile?)?
    {
        guard let mvpd = configuration.mvpd(mvpdID, for: holder.requestor.id) else { throw V2Errors.unknownMVPD }
        let requestor = holder.requestor.id
        if let own = state.liveProfiles(holder.deviceKey, now: now)[mvpd.id] {
            return (authorizeAnswer(mvpd.id, reason: mvpd.isTempPass == true ? "temporary" : "authenticated", requestor: requestor), own)
        }
        if let profile = callerProfiles(holder, now: now)[mvpd.id] {
            let degraded = profile.type == "degraded"
            return (
                authorizeAnswer(mvpd.id, reason: degraded ? "degraded" : "authenticatedSSO", requestor: requestor), degraded ? nil : profile
            )
        }
        guard mvpd.isTempPass == true else { return nil }
        let profile = try startTempPass(mvpd, holder: holder, now: now)
        return (authorizeAnswer(mvpd.id, reason: "temporary", requestor: requestor), profile)
    }
}

/// The parameters of a session, each checked: a known MVPD of the requestor, a domain, an allowed redirect URL.
struct SessionParameters {
    let mvpd: String?
    let domainName: String?
    let redirectURL: String?

    init(
        _ mvpd: String?, _ domainName: String?, _ redirectURL: String?, requestor: ServiceProviderConfiguration.Requestor,
        provider: ServiceProvider
    ) throws(ServiceProviderError) {
        if let mvpd, provider.configuration.mvpd(mvpd, for: requestor.id) == nil { throw V2Errors.unknownMVPD }
        if let domainName {
            guard APICall.isAcceptable(domainName, limit: 256), requestor.domains.map({ $0.contains(domainName) }) ?? true else {
                throw V2Errors.badRequest("invalid_parameter_service_provider", "domainName is not a domain of this service provider")
            }
        }
        if let redirectURL, !requestor.allowsRedirect(to: redirectURL),
            redirectURL != ServiceProvider.activationDonePath(requestor.id)
        {
            throw V2Errors.invalidRedirectURL
        }
        self.mvpd = mvpd
        self.domainName = domainName
        self.redirectURL = redirectURL
    }
}

extension ServiceProviderConfiguration.MVPD {
    /// The MVPD as the v2 `configuration` lists it.
    var v2Entry: Components.Schemas.MvpdType {
        Components.Schemas.MvpdType(
            boardingStatus: boardingStatus, displayInPlatformPicker: boardingStatus == "PICKER" ? true : nil, displayName: displayName,
            enablePlatformServices: enablePlatformServices ?? false, id: id, isTempPass: isTempPass ?? false, logoUrl: logoURL,
            platformMappingId: platformMappingId)
    }
}
