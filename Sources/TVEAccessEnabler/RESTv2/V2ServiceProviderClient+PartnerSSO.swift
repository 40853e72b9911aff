import Foundation
import OpenAPIRuntime
import TVEPassAPIv2

extension V2ServiceProviderClient {
    /// The partner of REST API v2's partner single sign-on: Apple's Video Subscriber Account.
    static let partner = "Apple"

    /// `POST sessions/sso/Apple`: with the platform's status, a `partner_profile` session whose `authenticationRequest`
    /// the platform answers, or a classic session (`pfs_fallback`, `configuration_fallback`) to go on without it.
    func partnerSession(domainName: String, redirectURL: String, status: PassAPIv2.PartnerFrameworkStatus)
        async throws(AccessEnablerError) -> Components.Schemas.SessionResponse
    {
        let output = try await run("sessions/sso") {
            try await client.retrieveVerificationTokenUsingPOST(
                path: .init(partner: Self.partner, serviceProvider: requestor),
                headers: .init(
                    apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo, apPartnerFrameworkStatus: status.header),
                body: .urlEncodedForm(.init(domainName: domainName, redirectUrl: redirectURL)))
        }
        return try await run("sessions/sso") { try output.ok.body.json }
    }

    /// `POST profiles/sso/Apple`: the platform's SAML response (Base64) becomes the device's `appleSSO` profile.
    func partnerProfile(samlResponse: String, status: PassAPIv2.PartnerFrameworkStatus) async throws(AccessEnablerError)
        -> [String: Components.Schemas.MvpdProfileResponse]
    {
        let output = try await run("profiles/sso") {
            try await client.createPartnerProfileUsingPOST(
                path: .init(partner: Self.partner, serviceProvider: requestor),
                headers: .init(
                    apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo, apPartnerFrameworkStatus: status.header),
                body: .urlEncodedForm(.init(samlResponse: samlResponse)))
        }
        let answer = try await run("profiles/sso") { try output.ok.body.json }
        return answer.profiles?.additionalProperties ?? [:]
    }
}
