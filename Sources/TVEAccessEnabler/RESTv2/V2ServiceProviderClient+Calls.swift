import Foundation
import OpenAPIRuntime
import TVEPassAPIv2

extension V2ServiceProviderClient {
    /// `GET profiles/{mvpd}` (or all profiles): the device's live profiles by MVPD.
    func profiles(mvpd: String? = nil) async throws(AccessEnablerError) -> [String: Components.Schemas.MvpdProfileResponse] {
        let headers = try headers
        let partner = await partnerFrameworkStatus()?.header
        let device = Operations.GetProfilesUsingGET1.Input.Headers(
            apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo, apPartnerFrameworkStatus: partner)
        let answer: Components.Schemas.ProfilesResponse
        if let mvpd {
            let output = try await run("profiles") {
                try await client.getProfileForMvpdUsingGET(
                    path: .init(mvpd: mvpd, serviceProvider: requestor),
                    headers: .init(
                        apDeviceIdentifier: device.apDeviceIdentifier, xDeviceInfo: device.xDeviceInfo, apPartnerFrameworkStatus: partner))
            }
            answer = try await run("profiles") { try output.ok.body.json }
        } else {
            let output = try await run("profiles") {
                try await client.getProfilesUsingGET1(path: .init(serviceProvider: requestor), headers: device)
            }
            answer = try await run("profiles") { try output.ok.body.json }
        }
        return answer.profiles?.additionalProperties ?? [:]
    }

    /// `GET profiles/code/{code}`: the profile a second-screen login made with `code` (empty until it completes).
    func profiles(code: String) async throws(AccessEnablerError) -> [String: Components.Schemas.MvpdProfileResponse] {
        let output = try await run("profiles") {
            try await client.getProfileForCodeUsingGET1(path: .init(code: code, serviceProvider: requestor))
        }
        let answer = try await run("profiles") { try output.ok.body.json }
        return answer.profiles?.additionalProperties ?? [:]
    }

    /// `POST decisions/authorize/{mvpd}` (one resource) or `decisions/preauthorize/{mvpd}` (split into calls of at most
    /// ``preauthorizeBatch`` resources): the decisions in the order asked.
    func decisions(authorize: Bool, mvpd: String, resources: [String]) async throws(AccessEnablerError)
        -> [Components.Schemas.DecisionResponse]
    {
        let batch = authorize ? 1 : Self.preauthorizeBatch
        let partner = await partnerFrameworkStatus()?.header
        var decisions: [Components.Schemas.DecisionResponse] = []
        var start = 0
        while start < resources.count {
            let part = Array(resources[start..<min(start + batch, resources.count)])
            start += batch
            let answer: Components.Schemas.DecisionsResponse
            if authorize {
                let output = try await run("decisions") {
                    try await client.retrieveAuthorizeDecisionsForMvpdUsingPOST(
                        path: .init(mvpd: mvpd, serviceProvider: requestor),
                        headers: .init(
                            apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo, apPartnerFrameworkStatus: partner
                        ),
                        body: .json(.init(resources: part)))
                }
                answer = try await run("authorize") { try output.ok.body.json }
            } else {
                let output = try await run("decisions") {
                    try await client.retrievePreAuthorizeDecisionsForMvpdUsingPOST1(
                        path: .init(mvpd: mvpd, serviceProvider: requestor),
                        headers: .init(
                            apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo, apPartnerFrameworkStatus: partner
                        ),
                        body: .json(.init(resources: part)))
                }
                answer = try await run("preauthorize") { try output.ok.body.json }
            }
            decisions += answer.decisions ?? []
        }
        return decisions
    }

    /// `GET logout/{mvpd}`: what is left to do for the MVPD (`logout` with a URL, `complete`, `partner_logout`).
    func logout(mvpd: String, redirectURL: String?) async throws(AccessEnablerError) -> Components.Schemas.MvpdLogoutResponse? {
        let output = try await run("logout") {
            try await client.getLogoutForMvpdUsingGET(
                path: .init(mvpd: mvpd, serviceProvider: requestor), query: .init(redirectUrl: redirectURL),
                headers: .init(apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo))
        }
        let answer = try await run("logout") { try output.ok.body.json }
        return answer.logouts?.additionalProperties[mvpd]
    }
}

extension V2ServiceProviderClient {
    /// `POST sessions/{code}`: the second screen's part of a session, with what it was missing (the MVPD picked).
    func resumeSession(code: String, mvpd: String) async throws(AccessEnablerError) -> Components.Schemas.SessionResponse {
        let output = try await run("sessions/{code}") {
            try await client.resumeSessionUsingPOST(
                path: .init(code: code, serviceProvider: requestor), body: .urlEncodedForm(.init(mvpd: mvpd)))
        }
        return try await run("sessions/{code}") { try output.ok.body.json }
    }
}
