import Foundation
import Testing
import TVECrypto
import TVEPassAPIv2
@testable import TVEServiceProvider

@Suite("Local service provider: REST API v2 Apple single sign-on")
struct V2PartnerSSOTests {
    static func status(_ access: String = "granted", provider: String? = "sandbox-sso", expires: Int64? = nil) -> String {
        PassAPIv2.PartnerFrameworkStatus(
            frameworkPermissionInfo: .init(accessStatus: access), frameworkProviderInfo: .init(id: provider, expirationDate: expires)
        ).header
    }

    static let sessionForm = [("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")]

    /// The partner's SAML response for the request of a `partner_profile` session, from the local IdP's
    /// single-sign-on endpoint (what Apple's framework hands the app).
    static func partnerResponse(_ sandbox: ProviderHarness, session: [String: Any]) async throws -> String {
        let request = try #require((session["authenticationRequest"] as? [String: Any])?["request"] as? String)
        let xml = String(decoding: try Base64.decode(request), as: UTF8.self)
        let requestID = try #require(HTTPResult.capture(#"ID="([^"]+)""#, in: xml).first)
        let answer = try await sandbox.http.send(
            "POST", "idp/SandboxSSO/sso", form: [("username", "sso-viewer"), ("password", "sandbox-password"), ("request_id", requestID)])
        return try #require(answer.json["SAMLResponse"] as? String)
    }

    @Test("appleSSO: partner_profile session → the partner's SAML response → an appleSSO profile issued by Apple")
    func appleSSOSuccess() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = Self.status()
            let session = try await tv.raw("POST", "tvekit-sandbox/sessions/sso/Apple", form: Self.sessionForm, headers: headers)
            #expect(session.status == 200)
            #expect(session.json["actionName"] as? String == "partner_profile")
            #expect(session.json["mvpd"] as? String == "SandboxSSO")
            #expect((session.json["authenticationRequest"] as? [String: Any])?["type"] as? String == "saml")
            let response = try await Self.partnerResponse(sandbox, session: session.json)
            let profile = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", response)], headers: headers)
            #expect(profile.status == 200)
            let sso = ((profile.json["profiles"] as? [String: Any])?["SandboxSSO"] as? [String: Any]) ?? [:]
            #expect(sso["type"] as? String == "appleSSO")
            #expect(sso["issuer"] as? String == "Apple")
            #expect(try await tv.profiles()["SandboxSSO"]?._type == "appleSSO")
            // The same response again is a replay.
            let replay = try await tv.raw("POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", response)], headers: headers)
            #expect(replay.status == 400)
            #expect(replay.json["code"] as? String == "invalid_parameter_saml_response")
            // Logout of a partner profile: the viewer signs out in the platform's settings.
            let logout = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxSSO")
            let entry = (logout.json["logouts"] as? [String: Any])?["SandboxSSO"] as? [String: Any]
            #expect(entry?["actionName"] as? String == "partner_logout")
        }
    }

    @Test("forgedSAMLResponse: a response altered after signing, or signed by another key, makes no profile")
    func forgedSAMLResponse() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = Self.status()
            let session = try await tv.raw("POST", "tvekit-sandbox/sessions/sso/Apple", form: Self.sessionForm, headers: headers)
            let genuine = String(decoding: try Base64.decode(try await Self.partnerResponse(sandbox, session: session.json)), as: UTF8.self)
            let forged = genuine.replacingOccurrences(of: "sso-viewer", with: "attacker").replacingOccurrences(of: "u-0002", with: "u-9999")
            #expect(forged != genuine)
            let answer = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", Base64.encode(Array(forged.utf8)))], headers: headers)
            #expect(answer.status == 400)
            #expect(answer.json["code"] as? String == "invalid_parameter_saml_response")
            #expect(try await tv.profiles().isEmpty)
            let garbage = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", "PG5vdD4=")], headers: headers)
            #expect(garbage.json["code"] as? String == "invalid_parameter_saml_response")
        }
    }

    @Test(
        "fallbacks: no grant or no provider → pfs_fallback, a provider not boarded → configuration_fallback, both classic sessions for the MVPD the status names (else the one boarded MVPD)",
        arguments: [
            (nil as String?, "pfs_fallback", "SandboxSSO" as String?), (V2PartnerSSOTests.status("denied"), "pfs_fallback", "SandboxSSO"),
            (V2PartnerSSOTests.status("notDetermined"), "pfs_fallback", "SandboxSSO"),
            (V2PartnerSSOTests.status(provider: nil), "pfs_fallback", "SandboxSSO"),
            (V2PartnerSSOTests.status(provider: "no-such-provider"), "configuration_fallback", nil),
            (V2PartnerSSOTests.status(provider: "SandboxCable"), "configuration_fallback", "SandboxCable"),
        ])
    func fallbacks(status: String?, reason: String, mvpd: String?) async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = status
            let session = try await tv.raw("POST", "tvekit-sandbox/sessions/sso/Apple", form: Self.sessionForm, headers: headers)
            #expect(session.status == 200)
            #expect(session.json["reasonType"] as? String == reason)
            #expect(session.json["mvpd"] as? String == mvpd)
            #expect(session.json["actionName"] as? String == (mvpd == nil ? "resume" : "authenticate"))
            #expect(session.json["missingParameters"] as? [String] == (mvpd == nil ? ["mvpd"] : nil))
            #expect(session.json["code"] as? String != nil)
        }
    }

    @Test("missing parameters: a granted partner session without redirectUrl falls back to a session to resume, for the boarded MVPD")
    func missingParametersFallback() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = Self.status()
            let session = try await tv.raw(
                "POST", "tvekit-sandbox/sessions/sso/Apple", form: [("domainName", "adobe.com")], headers: headers)
            #expect(session.status == 200)
            #expect(session.json["actionName"] as? String == "resume" && session.json["actionType"] as? String == "direct")
            #expect(session.json["reasonType"] as? String == "missing_parameters_fallback")
            #expect(session.json["missingParameters"] as? [String] == ["redirectUrl"])
            let code = try #require(session.json["code"] as? String)
            #expect(session.json["url"] as? String == "/api/v2/tvekit-sandbox/sessions/\(code)")
        }
    }

    @Test("partner checks: an unknown partner, an expired provider session, a profile without a session")
    func partnerChecks() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = Self.status()
            let unknown = try await tv.raw("POST", "tvekit-sandbox/sessions/sso/Google", form: Self.sessionForm, headers: headers)
            #expect(unknown.json["code"] as? String == "invalid_parameter_partner")
            let noSession = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", "PG5vdD4=")], headers: headers)
            #expect(noSession.json["code"] as? String == "invalid_parameter_saml_response")
            headers["AP-Partner-Framework-Status"] = Self.status(expires: sandbox.clock.nowMilliseconds - 1)
            let expired = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", "PG5vdD4=")], headers: headers)
            #expect(expired.json["code"] as? String == "invalid_header_pfs_provider_info_expired")
            headers["AP-Partner-Framework-Status"] = "not base64!"
            let malformed = try await tv.raw(
                "POST", "tvekit-sandbox/profiles/sso/Apple", form: [("SAMLResponse", "PG5vdD4=")], headers: headers)
            #expect(malformed.status == 400)
            #expect(malformed.json["code"] as? String == "invalid_header_pfs_permission_access_not_present")
        }
    }
}
