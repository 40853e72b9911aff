import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// At most this many resources per preauthorize call (Adobe's usual limit), and one per authorize call.
    static let maximumPreauthorizeResources = 5
    /// How long a TempPass's first use is remembered after the pass runs out (so that it cannot start again): 24 hours.
    static let tempPassMemory: Int64 = 86_400_000

    func retrieveAuthorizeDecisionsForMvpdUsingPOST(_ input: Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.Input) async throws
        -> Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.Output
    {
        guard case .json(let body) = input.body else { throw V2Errors.missingResources }
        return .ok(.init(body: .json(try decisions(input.path.mvpd, body.resources, preauthorization: false))))
    }

    func retrievePreAuthorizeDecisionsForMvpdUsingPOST1(_ input: Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.Input)
        async throws -> Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.Output
    {
        guard case .json(let body) = input.body else { throw V2Errors.missingResources }
        return .ok(.init(body: .json(try decisions(input.path.mvpd, body.resources, preauthorization: true))))
    }

    /// The decisions for the caller's device: a denial is an item with `authorized: false` and an `error` (HTTP 200);
    /// an authorization carries a media token, a preauthorization never does.
    func decisions(_ mvpdID: String, _ resources: [String]?, preauthorization: Bool) throws(ServiceProviderError)
        -> Components.Schemas.DecisionsResponse
    {
        let caller = try V2Caller.get()
        guard let mvpd = configuration.mvpd(mvpdID, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        // A promotional TempPass is the viewer's, named by AP-TempPass-Identity on every decision.
        if mvpd.promotionalTempPass == true { _ = try tempPassKey(mvpd, caller: caller) }
        guard let resources, !resources.isEmpty else { throw V2Errors.missingResources }
        let limit = preauthorization ? Self.maximumPreauthorizeResources : 1
        guard resources.count <= limit else { throw V2Errors.tooManyResources(limit) }
        guard resources.allSatisfy({ APICall.isAcceptable($0, limit: ServiceProvider.maximumFieldBytes) }) else {
            throw V2Errors.badRequest("invalid_parameter_resources", "a resource is empty, over 16 KiB or has control characters")
        }
        let now = self.now
        let profile = try callerProfiles(caller, now: now)[mvpd.id]
        // Under degraded access the degradation rule decides, not the MVPD (which is down).
        let degraded = provider.degradedAccess.isOn(for: mvpd.id)
        let decisionTTL = configuration.authorizationTTL * 1000
        return .init(
            decisions: resources.map { resource in
                var decision = Components.Schemas.DecisionResponse(
                    authorized: false, mvpd: mvpd.id, resource: resource, serviceProvider: caller.requestor.id,
                    source: degraded ? "degradation" : mvpd.isTempPass == true ? "temppass" : "mvpd")
                guard let profile else {
                    let expired = mvpd.isTempPass == true && tempPassRanOut(mvpd, caller: caller, now: now)
                    decision.error = V2Errors.information(expired ? V2Errors.tempPassExpired : V2Errors.profileMissing)
                    return decision
                }
                let session = AuthenticationSession(
                    mvpd: profile.mvpd, userID: profile.userID, sessionGUID: profile.sessionGUID, platformSSO: profile.type == "appleSSO",
                    created: profile.notBefore, temporary: profile.type == "temporary")
                if let denial = provider.decide(caller.requestor, session, resource),
                    !degraded || denial.code == ServiceProviderError.unknownResource.code
                {
                    decision.error = V2Errors.information(V2Errors.decision(denial, preauthorization: preauthorization))
                    return decision
                }
                decision.authorized = true
                decision.notBefore = now
                decision.notAfter = min(now + decisionTTL, profile.notAfter)
                guard !preauthorization else { return decision }
                do {
                    let token = try provider.issuer.issue(
                        requestorID: caller.requestor.id, resourceID: resource, mvpdId: profile.mvpd, sessionGUID: profile.sessionGUID,
                        ttl: configuration.mediaTokenTTL)
                    // **Choice:** the token's window is its own: notBefore = issue time, notAfter = issue time + ttl.
                    decision.token = .init(
                        notAfter: token.issueTime + token.ttl, notBefore: token.issueTime, serializedToken: token.serialized)
                } catch {
                    decision.authorized = false
                    decision.notBefore = nil
                    decision.notAfter = nil
                    decision.error = V2Errors.information(
                        V2Errors.badRequest("invalid_parameter_resources", "no media token can be issued for this resource"))
                }
                return decision
            })
    }

    // MARK: TempPass and direct authorization

    /// The key of a TempPass (SHA-256, so that a large identity costs no memory): the requestor, the MVPD, and the
    /// device identifier, or for a promotional TempPass the `AP-TempPass-Identity` (required there). Not the client: a
    /// device that registers again gets no new pass.
    func tempPassKey(_ mvpd: ServiceProviderConfiguration.MVPD, caller: V2Caller) throws(ServiceProviderError) -> String {
        let holder: String
        if mvpd.promotionalTempPass == true {
            guard let identity = caller.tempPassIdentity else {
                throw V2Errors.badRequest(
                    "invalid_header_identity_for_temporary_access", "a promotional TempPass needs the AP-TempPass-Identity header")
            }
            holder = "identity\u{0}" + identity.key
        } else {
            holder = "device\u{0}" + (try caller.clientDevice().deviceID)
        }
        let text = caller.requestor.id + "\u{0}" + mvpd.id + "\u{0}" + holder
        return ((try? HashFunction.sha256.hash(Array(text.utf8))) ?? Array(text.utf8.prefix(64))).map { String(format: "%02x", $0) }
            .joined()
    }

    /// The TempPass of this caller was used and has run out.
    func tempPassRanOut(_ mvpd: ServiceProviderConfiguration.MVPD, caller: V2Caller, now: Int64) -> Bool {
        guard let key = try? tempPassKey(mvpd, caller: caller),
            case .live(let first, _) = state.tempPasses.withLock({ $0.lookup(key, now: now) })
        else { return false }
        return now >= first + mvpd.tempPassMilliseconds
    }

    /// The answer of a session that needs no login: the device already has a profile with `mvpdID`, or `mvpdID` is a
    /// TempPass (started at its first use); nil when a login is needed.
    func directAuthorization(_ mvpdID: String, caller: V2Caller, key: String, now: Int64) throws(ServiceProviderError)
        -> Components.Schemas.SessionResponse?
    {
        guard let mvpd = configuration.mvpd(mvpdID, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        func answer(_ reason: String) -> Components.Schemas.SessionResponse {
            .init(
                actionName: "authorize", actionType: "direct", mvpd: mvpd.id, reasonType: reason, serviceProvider: caller.requestor.id,
                sessionId: UUID().uuidString.lowercased())
        }
        if state.liveProfiles(key, now: now)[mvpd.id] != nil { return answer(mvpd.isTempPass == true ? "temporary" : "authenticated") }
        if let profile = try callerProfiles(caller, now: now)[mvpd.id] {
            return answer(profile.type == "degraded" ? "degraded" : "authenticatedSSO")
        }
        guard mvpd.isTempPass == true else { return nil }
        let passKey = try tempPassKey(mvpd, caller: caller)
        let duration = mvpd.tempPassMilliseconds
        if case .missing = state.tempPasses.withLock({ $0.lookup(passKey, now: now) }) {
            try provider.attempts.consume(.deviceState, try caller.clientDevice().clientID, now: now)
        }
        let first = try state.tempPasses.withLock { table -> Result<Int64, ServiceProviderError> in
            if case .live(let first, _) = table.lookup(passKey, now: now) { return .success(first) }
            guard table.insert(passKey, now, expires: now + duration + Self.tempPassMemory, now: now) else { return .failure(.busy) }
            return .success(now)
        }.get()
        guard now < first + duration else {
            throw ServiceProviderError(
                status: 403, code: "temporary_access_duration_limit_exceeded", message: "User not Authorized Error",
                details: "the temporary pass has run out", action: .authentication)
        }
        let profile = V2Profile(
            mvpd: mvpd.id, userID: "temppass", sessionGUID: UUID().uuidString.lowercased(), notBefore: first, notAfter: first + duration,
            type: "temporary", issuer: "TempPass")
        guard state.store(profile, for: key, now: now) else { throw .busy }
        return answer("temporary")
    }
}
