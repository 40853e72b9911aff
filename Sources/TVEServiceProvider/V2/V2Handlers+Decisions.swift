import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// At most this many resources per preauthorize call (Adobe's usual limit), and one per authorize call while the
    /// MVPD decides (the MVPDs' usual limit); under a degradation rule an authorize call may ask about as many as a
    /// preauthorize call, as Adobe's samples do.
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
    /// an authorization carries a media token, a preauthorization never does. A decision that was made (granted, or
    /// denied by the MVPD or a degradation rule) carries its window, `notBefore` and `notAfter`.
    func decisions(_ mvpdID: String, _ resources: [String]?, preauthorization: Bool) throws(ServiceProviderError)
        -> Components.Schemas.DecisionsResponse
    {
        let caller = try V2Caller.get()
        guard let mvpd = configuration.mvpd(mvpdID, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        // Under degraded access a degradation rule decides, not the MVPD (which is down).
        let rule = mvpd.isTempPass == true ? nil : provider.degradedAccess.mode(for: mvpd.id)
        guard let resources, !resources.isEmpty else { throw V2Errors.missingResources }
        let limit = preauthorization || rule != nil ? Self.maximumPreauthorizeResources : 1
        guard resources.count <= limit else { throw V2Errors.tooManyResources(limit) }
        guard resources.allSatisfy({ APICall.isAcceptable($0, limit: ServiceProvider.maximumFieldBytes) }) else {
            throw V2Errors.badRequest("invalid_parameter_resources", "a resource is empty, over 16 KiB or has control characters")
        }
        let now = self.now
        let profile = try callerProfiles(caller, now: now)[mvpd.id]
        guard mvpd.isTempPass != true else {
            return .init(
                decisions: try tempPassDecisions(
                    resources, mvpd: mvpd, caller: caller, profile: profile, preauth: preauthorization, now: now))
        }
        return .init(
            decisions: resources.map { resource in
                var decision = Components.Schemas.DecisionResponse(
                    authorized: false, mvpd: mvpd.id, resource: resource, serviceProvider: caller.requestor.id,
                    source: rule == nil ? "mvpd" : "degradation")
                guard let profile else {
                    decision.error = V2Errors.information(V2Errors.profileMissing)
                    return decision
                }
                let verdict = provider.decide(caller.requestor, session(of: profile), resource)
                let denial: ServiceProviderError?
                switch rule {
                case _ where verdict?.code == ServiceProviderError.unknownResource.code: denial = verdict
                case .authorizeNone?: denial = V2Errors.deniedByDegradationRule
                case .authenticateAll?, .authorizeAll?: denial = nil
                case nil: denial = verdict
                }
                decide(&decision, denial: denial, resource: resource, profile: profile, preauthorization: preauthorization, now: now)
                return decision
            })
    }

    /// The decisions of a TempPass: the pass's state first (configuration, identity, duration), then the requestor's
    /// and the MVPD's rules, then a promotional pass's limit of resources (an authorization of a new resource uses one).
    func tempPassDecisions(
        _ resources: [String], mvpd: ServiceProviderConfiguration.MVPD, caller: V2Caller, profile: V2Profile?, preauth: Bool, now: Int64
    ) throws(ServiceProviderError) -> [Components.Schemas.DecisionResponse] {
        let (_, deviceID) = try caller.clientDevice()
        let pass = tempPassState(mvpd, requestor: caller.requestor.id, deviceID: deviceID, identity: caller.tempPassIdentity, now: now)
        return resources.map { resource in
            var decision = Components.Schemas.DecisionResponse(
                authorized: false, mvpd: mvpd.id, resource: resource, serviceProvider: caller.requestor.id, source: "temppass")
            let key: String
            switch pass {
            case .failure(let failure):
                decision.error = V2Errors.information(V2Errors.tempPass(failure))
                return decision
            case .success(let state): key = state.key
            }
            guard let profile else {
                decision.error = V2Errors.information(V2Errors.profileMissing)
                return decision
            }
            var denial = provider.decide(caller.requestor, session(of: profile), resource)
            if denial == nil, mvpd.promotionalTempPass == true,
                !allowsTempPassResource(resource, key: key, limit: mvpd.tempPassResourceLimit, record: !preauth, now: now)
            {
                denial = V2Errors.tempPass(.resourcesExceeded)
            }
            decide(&decision, denial: denial, resource: resource, profile: profile, preauthorization: preauth, now: now)
            return decision
        }
    }

    /// The v1 session a profile stands for, for the configured rules (``ServiceProvider/decide(_:_:_:)``).
    func session(of profile: V2Profile) -> AuthenticationSession {
        AuthenticationSession(
            mvpd: profile.mvpd, userID: profile.userID, sessionGUID: profile.sessionGUID, platformSSO: profile.type == "appleSSO",
            created: profile.notBefore, temporary: profile.type == "temporary")
    }

    /// Completes a decision: denied with `denial` (its window too when a rule denied, not for a resource the requestor
    /// does not offer or a TempPass's limit), else authorized with its window and, for an authorization, a media token.
    func decide(
        _ decision: inout Components.Schemas.DecisionResponse, denial: ServiceProviderError?, resource: String, profile: V2Profile,
        preauthorization: Bool, now: Int64
    ) {
        let notAfter = min(now + configuration.authorizationTTL * 1000, profile.notAfter)
        if let denial {
            decision.error = V2Errors.information(V2Errors.decision(denial, preauthorization: preauthorization))
            if denial.httpStatus == 403, denial.code != "temporary_access_resources_limit_exceeded" {
                decision.notBefore = now
                decision.notAfter = notAfter
            }
            return
        }
        decision.authorized = true
        decision.notBefore = now
        decision.notAfter = notAfter
        guard !preauthorization else { return }
        do {
            let token = try provider.issuer.issue(
                requestorID: decision.serviceProvider, resourceID: resource, mvpdId: profile.mvpd, sessionGUID: profile.sessionGUID,
                ttl: configuration.mediaTokenTTL)
            // **Choice:** the token's window is its own: notBefore = issue time, notAfter = issue time + ttl.
            decision.token = .init(notAfter: token.issueTime + token.ttl, notBefore: token.issueTime, serializedToken: token.serialized)
        } catch {
            decision.authorized = false
            decision.notBefore = nil
            decision.notAfter = nil
            decision.error = V2Errors.information(
                V2Errors.badRequest("invalid_parameter_resources", "no media token can be issued for this resource"))
        }
    }
}
