import Foundation
import HTTPTypes
import Hummingbird
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEMetadata
import TVETokens

extension ServiceProvider {
    func authorizationRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        api(router, .get, "api/v1/authorize") { call in
            let requestor = try call.requestor()
            let client = try call.requireClient(requestor: requestor.id)
            let deviceID = try call.deviceID()
            let resource = try call.required("resource", error: .missingResource)
            let now = self.clock.nowMilliseconds
            let expires = now + self.configuration.authorizationTTL * 1000
            let deviceKey = ServiceProviderState.deviceKey(requestor.id, client, deviceID)
            let key = ServiceProviderState.authorizationKey(requestor.id, client, deviceID, resource)
            // The decision and the grant under one lock, for the session that is live then: a login in between cannot
            // inherit a decision made for another subscriber.
            let outcome = self.state.identity.withLock { identity -> Result<AuthenticationSession, ServiceProviderError> in
                guard case .live(let session, _) = identity.sessions.lookup(deviceKey, now: now) else { return .failure(.notAuthenticated) }
                if let denial = self.decide(requestor, session, resource) { return .failure(denial) }
                guard identity.authorizations.insert(key, session.sessionGUID, expires: expires, now: now) else { return .failure(.busy) }
                return .success(session)
            }
            let session = try outcome.get()
            return Response.json(
                .ok,
                PassAPI.AuthorizationResponse(
                    mvpd: session.mvpd, resource: resource, requestor: requestor.id, expires: .init(milliseconds: expires)))
        }
        api(router, .get, "api/v1/tokens/authz") { call in
            let (requestor, _, session, resource, expires) = try self.authorizedResource(call)
            return Response.json(
                .ok,
                PassAPI.AuthorizationResponse(
                    mvpd: session.mvpd, resource: resource, requestor: requestor.id, expires: .init(milliseconds: expires)))
        }
        for path in ["api/v1/tokens/media", "api/v1/mediatoken"] {
            api(router, .get, RouterPath(path)) { call in
                let (requestor, _, session, resource, _) = try self.authorizedResource(call)
                let token: ShortMediaToken
                do {
                    token = try self.issuer.issue(
                        requestorID: requestor.id, resourceID: resource, mvpdId: session.mvpd,
                        sessionGUID: session.sessionGUID, ttl: self.configuration.mediaTokenTTL)
                } catch {
                    throw ServiceProviderError.badRequest("invalid_parameter", "no media token can be issued for this resource")
                }
                return Response.json(
                    .ok,
                    PassAPI.MediaTokenResponse(
                        requestor: requestor.id, resource: resource, mvpdID: session.mvpd,
                        expires: .init(milliseconds: token.issueTime + token.ttl),
                        serializedToken: token.serialized))
            }
        }
        api(router, .get, "api/v1/preauthorize") { call in
            let (requestor, _, session) = try self.authenticatedDevice(call, missing: .notAuthenticated)
            let resources = call.fields("resource").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                .filter { !$0.isEmpty }
            guard !resources.isEmpty else { throw ServiceProviderError.missingResource }
            guard resources.count <= self.configuration.maximumPreauthorizeResources else {
                throw ServiceProviderError.badRequest(
                    "too_many_resources",
                    "at most \(self.configuration.maximumPreauthorizeResources) resources per request")
            }
            guard resources.allSatisfy({ APICall.isAcceptable($0, limit: Self.maximumFieldBytes) }) else {
                throw ServiceProviderError.badRequest("invalid_parameter", "a resource is too long or has control characters")
            }
            let decisions = resources.map { resource -> PassAPI.PreauthorizationResponse.Decision in
                let denial = self.decide(requestor, session, resource)
                return .init(
                    id: resource, authorized: denial == nil,
                    error: self.configuration.enhancedErrors ? denial?.enhanced : nil,
                    message: self.configuration.enhancedErrors ? nil : denial?.details)
            }
            return Response.json(.ok, PassAPI.PreauthorizationResponse(resources: decisions))
        }
        api(router, .get, "api/v1/tokens/usermetadata") { call in
            let (requestor, _, session) = try self.authenticatedDevice(call, missing: .authenticationMissing)
            return try self.userMetadata(requestor, session)
        }
        return router
    }

    /// The requestor, device and live authentication a call is about, after the client check.
    func authenticatedDevice(_ call: APICall, missing: ServiceProviderError)
        throws(ServiceProviderError) -> (ServiceProviderConfiguration.Requestor, String, AuthenticationSession)
    {
        let requestor = try call.requestor()
        let client = try call.requireClient(requestor: requestor.id)
        let deviceID = try call.deviceID()
        switch session(requestor.id, client, deviceID) {
        case .live(let session, _): return (requestor, deviceID, session)
        case .expired: throw .authenticationExpired
        case .missing: throw missing
        }
    }

    /// A live authorization of the live session: 412 without authentication (or once it expired), 404 without
    /// authorization (or one granted to an earlier session of the device), 410 once it expired.
    func authorizedResource(_ call: APICall)
        throws(ServiceProviderError) -> (ServiceProviderConfiguration.Requestor, String, AuthenticationSession, String, Int64)
    {
        let requestor = try call.requestor()
        let client = try call.requireClient(requestor: requestor.id)
        let deviceID = try call.deviceID()
        let resource = try call.required("resource", error: .missingResource)
        let now = clock.nowMilliseconds
        let deviceKey = ServiceProviderState.deviceKey(requestor.id, client, deviceID)
        let key = ServiceProviderState.authorizationKey(requestor.id, client, deviceID, resource)
        let outcome = state.identity.withLock { identity -> Result<(AuthenticationSession, Int64), ServiceProviderError> in
            switch identity.sessions.lookup(deviceKey, now: now) {
            case .missing: return .failure(.authenticationMissing)
            case .expired: return .failure(.authenticationExpiredPrecondition)
            case .live(let session, _):
                switch identity.authorizations.lookup(key, now: now) {
                case .live(let guid, let expires) where guid == session.sessionGUID: return .success((session, expires))
                case .expired: return .failure(.authorizationExpired)
                default: return .failure(.authorizationNotFound)
                }
            }
        }
        let (session, expires) = try outcome.get()
        return (requestor, deviceID, session, resource, expires)
    }

    /// The configured rules, in order: the requestor's resource list, the MVPD's denials, the subscriber's denials.
    /// An MRSS resource is decided by its channel (`rss/channel/title`), as Adobe's plain IDs stand for channels; an
    /// MRSS document TVEKit cannot read is an unknown resource.
    func decide(_ requestor: ServiceProviderConfiguration.Requestor, _ session: AuthenticationSession, _ requested: String)
        -> ServiceProviderError?
    {
        let resource: String
        if requested.utf8.first == UInt8(ascii: "<") {
            guard let mrss = try? MRSSResource(parsing: requested) else { return .unknownResource }
            resource = mrss.channelTitle
        } else {
            resource = requested
        }
        if let offered = requestor.resources, !offered.contains(resource) { return .unknownResource }
        guard let mvpd = configuration.mvpds.first(where: { $0.id == session.mvpd }) else {
            return .denied("the MVPD is no longer configured")
        }
        if let message = mvpd.deniedResources?[resource] { return .denied(message) }
        if session.temporary { return nil }
        guard let user = self.user(session) else { return .denied("the MVPD does not know this subscriber any more") }
        if let message = user.deniedResources[resource] { return .denied(message) }
        return nil
    }

    func user(_ session: AuthenticationSession) -> ServiceProviderConfiguration.User? {
        configuration.mvpds.first { $0.id == session.mvpd }?.users.first { LocalIdentityProvider.nameID(of: $0) == session.userID }
    }

    /// `GET /api/v1/tokens/usermetadata`: the subscriber's configured metadata (plus `tokenSource: "Apple"` after a
    /// platform-SSO login), REST v1 shape, the requestor's `encryptedMetadataKeys` encrypted for the programmer's key.
    func userMetadata(_ requestor: ServiceProviderConfiguration.Requestor, _ session: AuthenticationSession) throws(ServiceProviderError)
        -> Response
    {
        var values: [String: JSONValue] = [:]
        for (key, text) in user(session)?.metadata ?? [:] {
            values[key] = JSONValue(jsonText: Array(text.utf8)) ?? .string(text)
        }
        if session.platformSSO { values["tokenSource"] = .string("Apple") }
        let metadata = UserMetadata(updated: session.created, values: values)
        let document: UserMetadataDocument
        if let key = keys.metadataEncryptionKey {
            let encoding: MetadataEncryptor.Encoding =
                requestor.metadataEncryption == "jwe" ? .jwe(.rsaOAEP256, .a256GCM) : .rsaBlocks(lineLength: nil)
            let encrypted = Set(requestor.encryptedMetadataKeys ?? []).intersection(values.keys)
            do {
                document = try MetadataEncryptor(publicKey: key, encoding: encoding).encryptDocument(metadata, encrypting: encrypted)
            } catch {
                throw .internalError
            }
        } else {
            document = UserMetadataDocument(updated: session.created, entries: values.mapValues { .plain($0) })
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: document.jsonText)))
    }
}
