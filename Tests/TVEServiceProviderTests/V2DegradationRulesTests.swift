import Foundation
import Testing
import TVEPassAPIv2
import TVESandbox
@testable import TVEServiceProvider

/// REST API v2: Adobe's degradation rules, a promotional TempPass's limits, and what a resumed session may borrow.
@Suite("REST API v2: degradation rules, TempPass limits, resumed sessions")
struct V2DegradationRulesTests {
    static let identity = "eyJlbWFpbCI6ImZvb0BiYXIuY29tIn0="

    @Test("degradationRules: AuthZAll authorizes a logged-in device by the rule, AuthZNone denies it; neither logs anyone in")
    func authorizationRules() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox, name: "tv")
            let stranger = V2Device(sandbox, name: "stranger")
            _ = try await tv.login()
            sandbox.provider.degradedAccess.begin(mvpd: "SandboxCable", mode: .authorizeAll)
            #expect(sandbox.provider.degradedAccess.mode(for: "SandboxCable") == .authorizeAll)
            // Two resources at once, as Adobe's samples ask: the rule decides, not the MVPD and its one-resource limit.
            let granted = try await tv.decisions("authorize", ["news", "premium-sports"])
            #expect(granted.count == 2 && granted.allSatisfy { $0.authorized && $0.source == "degradation" && $0.token != nil })
            // No degraded profile: a device without a login stays without one.
            #expect(try await stranger.profiles().isEmpty)
            let missing = try #require(try await stranger.decisions("authorize", ["news"]).first)
            #expect(!missing.authorized && missing.error?.code == "authenticated_profile_missing")
            let session = try await stranger.createSession(mvpd: "SandboxCable")
            #expect(session.actionName == "authenticate")

            sandbox.provider.degradedAccess.begin(mvpd: "SandboxCable", mode: .authorizeNone)
            let denied = try #require(try await tv.decisions("preauthorize", ["news"]).first)
            #expect(!denied.authorized && denied.source == "degradation")
            #expect(denied.error?.code == "authorization_denied_by_degradation_rule" && denied.error?.status == 403)
            #expect(denied.notBefore != nil && denied.notAfter != nil)
            // Without a rule, one resource per authorization again.
            sandbox.provider.degradedAccess.end(mvpd: "SandboxCable")
            let tooMany = try await tv.raw(
                "POST", "tvekit-sandbox/decisions/authorize/SandboxCable", json: #"{"resources":["news","sports"]}"#)
            #expect(tooMany.status == 400 && tooMany.json["code"] as? String == "too_many_resources")
        }
    }

    @Test("degradationRules: begin(mvpd:) is AuthNAll; AuthNAll logs out as complete and answers a partner session with authorize")
    func authenticateAll() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            sandbox.provider.degradedAccess.begin(mvpd: "SandboxSSO")
            #expect(sandbox.provider.degradedAccess.mode(for: "SandboxSSO") == .authenticateAll)
            var headers = tv.headers
            headers["AP-Partner-Framework-Status"] = V2PartnerSSOTests.status()
            let partner = try await tv.raw(
                "POST", "tvekit-sandbox/sessions/sso/Apple", form: V2PartnerSSOTests.sessionForm, headers: headers)
            #expect(partner.json["actionName"] as? String == "authorize" && partner.json["reasonType"] as? String == "degraded")
            #expect(partner.json["url"] as? String == "/api/v2/tvekit-sandbox/decisions/authorize/SandboxSSO")
            let logout = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxSSO?redirectUrl=https%3A%2F%2Fadobe.com")
            let action = (logout.json["logouts"] as? [String: Any])?["SandboxSSO"] as? [String: Any]
            #expect(action?["actionName"] as? String == "complete" && action?["actionType"] as? String == "none" && action?["url"] == nil)
        }
    }

    @Test(
        "tempPassResourceLimit: a promotional pass cannot be stretched past its resources; a used one stays good; a preauthorization uses none"
    )
    func promotionalResourceLimit() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        for index in configuration.mvpds.indices where configuration.mvpds[index].promotionalTempPass == true {
            configuration.mvpds[index].tempPassResourceLimit = 2
        }
        try await withSandbox(configuration) { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-TempPass-Identity"] = Self.identity
            let form = [("mvpd", "SandboxPromoPass"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")]
            #expect(
                try await tv.raw("POST", "tvekit-sandbox/sessions", form: form, headers: headers).json["reasonType"] as? String
                    == "temporary")
            func decide(_ kind: String, _ resource: String) async throws -> [String: Any] {
                let answer = try await tv.raw(
                    "POST", "tvekit-sandbox/decisions/\(kind)/SandboxPromoPass", json: #"{"resources":["\#(resource)"]}"#, headers: headers)
                return try #require((answer.json["decisions"] as? [[String: Any]])?.first)
            }
            #expect(try await decide("preauthorize", "a")["authorized"] as? Bool == true)
            #expect(try await decide("authorize", "a")["authorized"] as? Bool == true)
            #expect(try await decide("authorize", "b")["authorized"] as? Bool == true)
            let third = try await decide("authorize", "c")
            #expect(third["authorized"] as? Bool == false)
            #expect((third["error"] as? [String: Any])?["code"] as? String == "temporary_access_resources_limit_exceeded")
            #expect(try await decide("authorize", "a")["authorized"] as? Bool == true)
            // The profile route says so too.
            let profile = try await tv.raw("GET", "tvekit-sandbox/profiles/SandboxPromoPass", headers: headers)
            #expect(profile.status == 403 && profile.json["code"] as? String == "temporary_access_resources_limit_exceeded")
            // Without the viewer's identity, no pass: a per-decision error, and a 400 on the profile route.
            let anonymous = try await tv.raw(
                "POST", "tvekit-sandbox/decisions/authorize/SandboxPromoPass", json: #"{"resources":["a"]}"#)
            let item = try #require((anonymous.json["decisions"] as? [[String: Any]])?.first)
            #expect(anonymous.status == 200 && item["authorized"] as? Bool == false)
            #expect((item["error"] as? [String: Any])?["code"] as? String == "invalid_header_identity_for_temporary_access")
            #expect(try await tv.raw("GET", "tvekit-sandbox/profiles/SandboxPromoPass").status == 400)
        }
    }

    @Test("tempPassProfile: a TempPass profile is Adobe's, with its expiration date, and a promotional one lists its resources")
    func tempPassProfileAttributes() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["AP-TempPass-Identity"] = Self.identity
            let form = [("mvpd", "SandboxPromoPass"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")]
            _ = try await tv.raw("POST", "tvekit-sandbox/sessions", form: form, headers: headers)
            _ = try await tv.raw(
                "POST", "tvekit-sandbox/decisions/authorize/SandboxPromoPass", json: #"{"resources":["news"]}"#, headers: headers)
            let answer = try await tv.raw("GET", "tvekit-sandbox/profiles/SandboxPromoPass", headers: headers)
            let profile = try #require((answer.json["profiles"] as? [String: Any])?["SandboxPromoPass"] as? [String: Any])
            #expect(profile["issuer"] as? String == "Adobe" && profile["type"] as? String == "temporary")
            let attributes = try #require(profile["attributes"] as? [String: [String: Any]])
            #expect(attributes["expiration_date"]?["value"] as? Int64 == profile["notAfter"] as? Int64)
            #expect(attributes["used_assets"]?["value"] as? [String] == ["news"])
            #expect(attributes["remaining_resources"]?["value"] as? Int == 4)
        }
    }

    @Test("resumeBorrowsNoSingleSignOn: a second screen's single-sign-on identity does not sign in the session's device")
    func resumeBorrowsNoIdentity() async throws {
        try await withSandbox { sandbox in
            let keys = V2SingleSignOnTests.method("platform", sandbox.keys)
            let phone = V2Device(sandbox, name: "phone")
            try await V2SingleSignOnTests.login(
                phone, headers: V2SingleSignOnTests.headers(phone, keys.header, try V2SingleSignOnTests.token(sandbox, key: keys.key)))
            let tv = V2Device(sandbox, name: "tv")
            let code = try #require(try await tv.createSession(mvpd: nil).code)
            // The phone resumes the TV's session with its own identity: the TV still needs a login.
            var headers = ["Authorization": sandbox.bearer]
            headers[keys.header] = try V2SingleSignOnTests.token(sandbox, key: keys.key)
            let resumed = try await phone.raw("POST", "tvekit-sandbox/sessions/\(code)", form: [("mvpd", "SandboxCable")], headers: headers)
            #expect(resumed.json["actionName"] as? String == "authenticate")
            #expect(try await tv.profiles().isEmpty)
        }
    }

    @Test("configuration: TempPass options only where Adobe has them, within their bounds")
    func configurationProblems() {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].tempPassResourceLimit = 3
        configuration.mvpds[0].tempPassConfigurationInvalid = true
        configuration.mvpds[3].tempPassResourceLimit = 0
        let problems = configuration.problems
        #expect(problems.contains("MVPD SandboxCable: tempPassResourceLimit is for a promotional TempPass only"))
        #expect(problems.contains("MVPD SandboxCable: tempPassConfigurationInvalid is for a TempPass only"))
        #expect(problems.contains("MVPD SandboxPromoPass: tempPassResourceLimit must be 1 to 1000"))
        #expect(ServiceProviderConfiguration.sandbox.problems.isEmpty)
    }
}
