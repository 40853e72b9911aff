/// `checkAuthorization` and `checkPreauthorizedResources`: authorizations kept per resource (REST API v1 renews one
/// once when the service provider no longer holds it; every REST API v2 authorization brings its own media token).
struct AuthorizationFlow {
    let setup: RequestorSetup
    let session: SessionStore

    /// The caller holds the serial queue. The device must be authenticated (else `USER_NOT_AUTHENTICATED_ERROR`);
    /// authorizes the resource unless a valid authorization is stored, then returns a fresh short media token.
    nonisolated(nonsending) func authorize(resource: String, data: [String: String]) async throws(AccessEnablerError) -> String {
        guard !resource.isEmpty, resource.utf8.count <= 16 * 1024 else {
            throw AccessEnablerError(.genericAuthorization, "the resource is empty or over 16 KiB")
        }
        var entitlements = try await session.load()
        guard let authentication = entitlements.authentication else {
            throw AccessEnablerError(.userNotAuthenticated, "the user is not authenticated")
        }
        let (client, _) = try setup.client(for: authentication.mvpd)
        do {
            let stored = entitlements.authorizations[resource]
            let (token, authorization) = try await client.mediaToken(
                deviceID: entitlements.deviceID, mvpd: authentication.mvpd, resource: resource, data: data, stored: stored)
            if authorization != stored {
                entitlements.authorizations[resource] = authorization
                try await session.save(entitlements)
            }
            return token
        } catch {
            if error.code == .userNotAuthenticated {
                // The service provider no longer knows the authentication: forget it.
                entitlements.forgetAuthentication()
                try? await session.save(entitlements)
            } else if Self.isGone(error) || error.code == .userNotAuthorized || error.code == .tempPassExpired || error.enhancedCode != nil
            {
                // Gone, or denied now: a stored authorization must not answer a cached preauthorization any more.
                entitlements.authorizations[resource] = nil
                try? await session.save(entitlements)
            }
            throw error
        }
    }

    /// With `cache`, resources with a stored valid authorization are answered without asking the service provider.
    nonisolated(nonsending) func preauthorize(_ resources: [String], cache: Bool) async throws(AccessEnablerError) -> [String] {
        try await decisions(resources, cache: cache).filter(\.authorized).map(\.resource)
    }

    /// A decision per resource, in the order asked: a stored authorization (with `cache`) or the service provider's
    /// answer, a denial with the MVPD's message; a resource the answer leaves out is not authorized. None authorized
    /// when the device is not authenticated.
    nonisolated(nonsending) func decisions(_ resources: [String], cache: Bool) async throws(AccessEnablerError)
        -> [PreauthorizationDecision]
    {
        guard resources.count <= 1000 else { throw AccessEnablerError(.tooManyResources, "at most 1,000 resources per preauthorization") }
        let entitlements = try await session.load()
        guard let authentication = entitlements.authentication else {
            return resources.map { PreauthorizationDecision(resource: $0, authorized: false) }
        }
        let known = Set(cache ? resources.filter { entitlements.authorizations[$0] != nil } : [])
        let remaining = resources.filter { !known.contains($0) }
        var answered: [String: PreauthorizationDecision] = [:]
        if !remaining.isEmpty {
            let (client, _) = try setup.client(for: authentication.mvpd)
            let decisions = try await client.preauthorize(deviceID: entitlements.deviceID, mvpd: authentication.mvpd, resources: remaining)
            for decision in decisions where answered[decision.resource] == nil { answered[decision.resource] = decision }
        }
        return resources.map { resource in
            if known.contains(resource) { return PreauthorizationDecision(resource: resource, authorized: true) }
            return answered[resource] ?? PreauthorizationDecision(resource: resource, authorized: false)
        }
    }

    /// 404 or 410: the service provider does not hold it (any more).
    private static func isGone(_ error: AccessEnablerError) -> Bool { error.httpStatus == 404 || error.httpStatus == 410 }
}
