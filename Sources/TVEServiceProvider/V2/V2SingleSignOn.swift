import Foundation
import HTTPTypes
import TVEConcurrency
import TVECrypto
import TVEPassAPIv2
import TVETokens

/// A REST API v2 single-sign-on identity: the `sub` of a checked `Adobe-Subject-Token` (platform identity) or
/// `AD-Service-Token` (service token). Profiles made by a login that carried it are kept for the identity as well as
/// for the device, and every app of this service provider that sends the same identity shares them: the other apps'
/// `POST sessions` answer `authorize` with `reasonType: authenticatedSSO`, and their profiles show as `platformSSO` or
/// `serviceTokenSSO`.
///
/// **Choice** (Adobe documents the JWT's claims, not its checks): the JWT is checked by
/// ``SingleSignOnToken/check(publicKeys:now:maximumLifetime:)`` under the service provider's keys of that method,
/// with a lifetime of at most 24 hours; a token is bound to the first client (the app's registration on one device)
/// that presents it, until it expires, so that a token copied to another app or device is refused as replayed; a bad token is a 400 with the code
/// `invalid_header_subject_token` or `invalid_header_service_token` (Adobe's list of codes has none for these
/// headers), never silently ignored. Sending both headers is refused.
/// Who first presented a single-sign-on token: the client, and the device once a call named one.
struct V2TokenHolder: Sendable, Hashable {
    let clientID: String
    var deviceID: String?
}

struct V2SingleSignOn: Sendable, Hashable {
    enum Method: String, Sendable, CaseIterable {
        case platformIdentity, serviceToken

        var header: String { self == .platformIdentity ? "Adobe-Subject-Token" : "AD-Service-Token" }
        var profileType: String { self == .platformIdentity ? "platformSSO" : "serviceTokenSSO" }
        var code: String { self == .platformIdentity ? "invalid_header_subject_token" : "invalid_header_service_token" }
        /// The identity services this method trusts: each issuer (`iss`) with its keys.
        func issuers(_ keys: ServiceProviderKeys) -> [String: [RSAPublicKey]] {
            self == .platformIdentity ? keys.platformIdentityIssuers : keys.serviceTokenIssuers
        }
    }

    let method: Method
    /// The key of the identity's profiles: the method, issuer and subject, hashed (never the subject in clear).
    let key: String

    /// The longest lifetime (`exp - iat`) accepted: 24 hours.
    static let maximumLifetime: Int64 = 86_400

    /// The identity of a request's single-sign-on header, checked; nil when it carries none.
    static func of(
        _ request: HTTPRequest, provider: ServiceProvider, requestor: ServiceProviderConfiguration.Requestor, clientID: String?,
        device: PassAPIv2.DeviceIdentifier?
    ) throws(ServiceProviderError) -> V2SingleSignOn? {
        let present = Method.allCases.compactMap { method in
            HTTPField.Name(method.header).flatMap { request.headerFields[$0] }.map { (method, PassAPIv2.headerValue($0)) }
        }
        guard let (method, value) = present.first else { return nil }
        guard present.count == 1 else {
            throw V2Errors.badRequest(method.code, "send one single-sign-on header, Adobe-Subject-Token or AD-Service-Token, not both")
        }
        func refuse(_ reason: String) -> ServiceProviderError { V2Errors.badRequest(method.code, "\(method.header): \(reason)") }
        guard value.utf8.count <= PassAPIv2.maximumHeaderBytes else { throw refuse("the token is over the header limit") }
        let now = provider.clock.nowMilliseconds
        let token: SingleSignOnToken
        do {
            token = try SingleSignOnToken(compact: value)
            // The compact form exactly: no padding or spaces around it, so that one token has one binding key.
            guard token.jwt.compact == value else { throw MediaTokenError.malformedStatement(reason: "the JWT is not in compact form") }
            // Only the keys of the token's own issuer: one identity service cannot speak for another's users.
            let keys = token.issuer.flatMap { method.issuers(provider.keys)[$0] } ?? []
            guard !keys.isEmpty else { throw MediaTokenError.invalidSignature(reason: "the token's issuer (\"iss\") is not trusted here") }
            try token.check(publicKeys: keys, now: now / 1000, maximumLifetime: maximumLifetime)
        } catch let error as MediaTokenError {
            throw refuse(error.reason)
        } catch {
            throw refuse("the token cannot be read")
        }
        guard let issuer = token.issuer, let subject = token.subject, let expires = token.jwt.expiresAt else {
            throw refuse("the token lacks iss, sub or exp")
        }
        // Bound to the first client that presents it and, from the first call that names a device, to that device
        // (the configuration call carries no device header), until it expires.
        let tokenKey = sha256Hex(token.jwt.compact)
        let device = device?.fingerprint
        let accepted = provider.v2.singleSignOnTokens.withLock { table -> Bool? in
            var holder = V2TokenHolder(clientID: clientID ?? "", deviceID: device)
            if case .live(let first, _) = table.lookup(tokenKey, now: now) {
                guard first.clientID == holder.clientID else { return false }
                switch (first.deviceID, device) {
                case (let bound?, let presented?) where bound != presented: return false
                case (nil, _?): break  // the first call that names the device binds it
                default: return true
                }
            } else {
                holder.deviceID = device
            }
            return table.insert(tokenKey, holder, expires: expires * 1000, now: now) ? true : nil
        }
        guard let accepted else { throw ServiceProviderError.busy }
        guard accepted else { throw refuse("the token was presented by another app or device first (replayed)") }
        let group = requestor.singleSignOnGroup ?? ""
        return V2SingleSignOn(
            method: method, key: "sso\u{0}" + method.rawValue + "\u{0}" + sha256Hex(group + "\u{0}" + issuer + "\u{0}" + subject))
    }
}
