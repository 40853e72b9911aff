import Foundation
import OpenAPIRuntime
import TVEPassAPIv2

extension V2ServiceProviderClient {
    /// The answer of a generated call that is not a success, as an error (each operation's output enum has the same
    /// documented error cases).
    static func check<Body>(
        _ what: String, ok: Body?, badRequest: Components.Schemas.ErrorInformation??, unauthorized: Components.Schemas.ErrorInformation??,
        serverError: Components.Schemas.ErrorInformation??, undocumented: (Int, UndocumentedPayload)?
    ) async throws(AccessEnablerError) -> Body {
        if let ok { return ok }
        if let badRequest { throw failure(badRequest, status: 400, what) }
        if let unauthorized { throw failure(unauthorized, status: 401, what) }
        if let serverError { throw failure(serverError, status: 500, what) }
        if let (status, payload) = undocumented { throw failure(await errorBody(payload), status: status, what) }
        throw failure(nil, status: 405, what)
    }

    /// `GET profiles/{mvpd}` (or all profiles): the device's live profiles by MVPD.
    func profiles(mvpd: String? = nil) async throws(AccessEnablerError) -> [String: Components.Schemas.MvpdProfileResponse] {
        let headers = try headers
        let device = Operations.GetProfilesUsingGET1.Input.Headers(
            apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo)
        let answer: Components.Schemas.ProfilesResponse
        if let mvpd {
            let output = try await run("profiles") {
                try await client.getProfileForMvpdUsingGET(
                    path: .init(mvpd: mvpd, serviceProvider: requestor),
                    headers: .init(apDeviceIdentifier: device.apDeviceIdentifier, xDeviceInfo: device.xDeviceInfo))
            }
            answer = try await Self.check(
                "profiles", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
                serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
        } else {
            let output = try await run("profiles") {
                try await client.getProfilesUsingGET1(path: .init(serviceProvider: requestor), headers: device)
            }
            answer = try await Self.check(
                "profiles", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
                serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
        }
        return answer.profiles?.additionalProperties ?? [:]
    }

    /// `GET profiles/code/{code}`: the profile a second-screen login made with `code` (empty until it completes).
    func profiles(code: String) async throws(AccessEnablerError) -> [String: Components.Schemas.MvpdProfileResponse] {
        let output = try await run("profiles") {
            try await client.getProfileForCodeUsingGET1(path: .init(code: code, serviceProvider: requestor))
        }
        let answer = try await Self.check(
            "profiles", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
            serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
        return answer.profiles?.additionalProperties ?? [:]
    }

    /// `POST decisions/authorize/{mvpd}` (one resource) or `decisions/preauthorize/{mvpd}` (split into calls of at most
    /// ``preauthorizeBatch`` resources): the decisions in the order asked.
    func decisions(authorize: Bool, mvpd: String, resources: [String]) async throws(AccessEnablerError)
        -> [Components.Schemas.DecisionResponse]
    {
        let batch = authorize ? 1 : Self.preauthorizeBatch
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
                        headers: .init(apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo),
                        body: .json(.init(resources: part)))
                }
                answer = try await Self.check(
                    "authorize", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
                    serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
            } else {
                let output = try await run("decisions") {
                    try await client.retrievePreAuthorizeDecisionsForMvpdUsingPOST1(
                        path: .init(mvpd: mvpd, serviceProvider: requestor),
                        headers: .init(apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo),
                        body: .json(.init(resources: part)))
                }
                answer = try await Self.check(
                    "preauthorize", ok: try? output.ok.body.json, badRequest: output.badRequestBody,
                    unauthorized: output.unauthorizedBody, serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
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
        let answer = try await Self.check(
            "logout", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
            serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
        return answer.logouts?.additionalProperties[mvpd]
    }
}

/// The error bodies of the generated outputs, read the same way for every operation.
protocol V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { get }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { get }
    var serverErrorBody: Components.Schemas.ErrorInformation?? { get }
    var undocumentedPayload: (Int, UndocumentedPayload)? { get }
}

extension Operations.GetProfilesUsingGET1.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension Operations.GetProfileForMvpdUsingGET.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension Operations.GetProfileForCodeUsingGET1.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension Operations.GetLogoutForMvpdUsingGET.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}

extension V2ServiceProviderClient {
    /// `POST sessions/{code}`: the second screen's part of a session, with what it was missing (the MVPD picked).
    func resumeSession(code: String, mvpd: String) async throws(AccessEnablerError) -> Components.Schemas.SessionResponse {
        let output = try await run("sessions/{code}") {
            try await client.resumeSessionUsingPOST(
                path: .init(code: code, serviceProvider: requestor), body: .urlEncodedForm(.init(mvpd: mvpd)))
        }
        return try await Self.check(
            "sessions/{code}", ok: try? output.ok.body.json, badRequest: output.badRequestBody, unauthorized: output.unauthorizedBody,
            serverError: output.serverErrorBody, undocumented: output.undocumentedPayload)
    }
}

extension Operations.ResumeSessionUsingPOST.Output: V2ErrorOutput {
    var badRequestBody: Components.Schemas.ErrorInformation?? { if case .badRequest(let a) = self { try? a.body.json } else { nil } }
    var unauthorizedBody: Components.Schemas.ErrorInformation?? { if case .unauthorized(let a) = self { try? a.body.json } else { nil } }
    var serverErrorBody: Components.Schemas.ErrorInformation?? {
        if case .internalServerError(let a) = self { try? a.body.json } else { nil }
    }
    var undocumentedPayload: (Int, UndocumentedPayload)? { if case .undocumented(let s, let p) = self { (s, p) } else { nil } }
}
