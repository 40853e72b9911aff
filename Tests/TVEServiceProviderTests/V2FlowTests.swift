import Foundation
import Testing
import TVECrypto
import OpenAPIRuntime
import TVEMetadata
import TVEPassAPIv2
import TVESandbox
@testable import TVEServiceProvider
import TVETokens

@Suite("Local service provider: REST API v2 flows")
struct V2FlowTests {
    @Test("secondScreenLoginOverHTTP: session → resume with the MVPD → browser login → profile by code → authorize → a token that verifies")
    func secondScreenLoginOverHTTP() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let created = try await tv.createSession(mvpd: nil)
            #expect(created.actionName == "resume")
            #expect(created.missingParameters == ["mvpd"])
            #expect(created.notBefore?.milliseconds == sandbox.clock.nowMilliseconds)
            #expect(created.notAfter?.milliseconds == sandbox.clock.nowMilliseconds + 1_800_000)
            let code = try #require(created.code)
            // The second screen reads the session, then resumes it with the MVPD.
            let status = try await tv.client.getSessionStatusUsingGET1(path: .init(code: code, serviceProvider: V2Device.serviceProvider))
            let statusBody = try status.ok.body.json
            #expect(statusBody.missingParameters == ["mvpd"])
            #expect(statusBody.existingParameters?.additionalProperties["domainName"] == "tvekit.test")
            #expect(statusBody.device?.model == "TVEKit Test Box")
            // Nothing to poll yet.
            let before = try await tv.client.getProfileForCodeUsingGET1(path: .init(code: code, serviceProvider: V2Device.serviceProvider))
            #expect(try before.ok.body.json.profiles?.additionalProperties.isEmpty ?? true)

            let resumed = try await tv.client.resumeSessionUsingPOST(
                path: .init(code: code, serviceProvider: V2Device.serviceProvider), body: .urlEncodedForm(.init(mvpd: "SandboxCable")))
            let session = try resumed.ok.body.json
            #expect(session.actionName == "authenticate")
            #expect(session.url == "/api/v2/authenticate/tvekit-sandbox/\(code)")
            let (location, pages) = try await tv.browserLogin(code: code)
            #expect(location == "adobepass://ios.app")
            #expect(pages.first?.status == 302)
            #expect(pages.first?.header("Location")?.hasPrefix("/idp/SandboxCable/login?") == true)
            #expect(pages.first?.header("Cache-Control") == "no-store")

            // The TV polls its code and finds the profile, with the metadata (encrypted keys as enc).
            let polled = try await tv.client.getProfileForCodeUsingGET1(path: .init(code: code, serviceProvider: V2Device.serviceProvider))
            let profile = try #require(try polled.ok.body.json.profiles?.additionalProperties["SandboxCable"])
            #expect(profile._type == "regular")
            #expect(profile.notBefore == sandbox.clock.nowMilliseconds)
            #expect(profile.notAfter == sandbox.clock.nowMilliseconds + 86_400_000)
            #expect(profile.attributes.additionalProperties["zip"]?.state == "enc")
            #expect(profile.attributes.additionalProperties["maxRating"]?.state == "plain")
            let encrypted = try #require(profile.attributes.additionalProperties["zip"]?.value?.value as? String)
            let decryptor = MetadataDecryptor(privateKey: sandbox.keys.metadataKey)
            #expect(try decryptor.decryptValue(encrypted) == .array([.string("12345")]))
            #expect(try await tv.profiles()["SandboxCable"]?.issuer == "SandboxCable")

            // Authorize: one decision with a media token whose window is the token's own.
            let decisions = try await tv.decisions("authorize", ["news"])
            let decision = try #require(decisions.first)
            #expect(decision.authorized)
            #expect(decision.source == "mvpd")
            let token = try #require(decision.token)
            let verifier = try MediaTokenVerifier(
                trustedKeys: [sandbox.keys.mediaTokenKey.publicKey], requestorID: ProviderHarness.requestor, clock: sandbox.clock)
            let verified = verifier.verify(token.serializedToken ?? "", resourceID: "news")
            #expect(verified.result == .validToken)
            #expect(token.notBefore == verified.token?.timeIssued)
            #expect(token.notAfter == (verified.token?.timeIssued ?? 0) + (verified.token?.timeToLive ?? 0))
            #expect(token.notAfter == sandbox.clock.nowMilliseconds + 420_000)

            // The code served its login: it cannot start another.
            let again = try await sandbox.http.send("GET", "api/v2/authenticate/\(V2Device.serviceProvider)/\(code)")
            #expect(again.status == 400)
            #expect(again.json["code"] as? String == "invalid_parameter_code")
        }
    }

    @Test("decisions: denials are HTTP 200 items with Adobe's codes, preauthorize never carries a token, resource limits")
    func decisionsAndLimits() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            // No profile yet: each item says so.
            let none = try await tv.decisions("preauthorize", ["news"])
            #expect(none.first?.authorized == false)
            #expect(none.first?.error?.code == "authenticated_profile_missing")
            _ = try await tv.login()
            let pre = try await tv.decisions("preauthorize", ["news", "premium-sports", "mature-show", "sports", "movies"])
            #expect(pre.count == 5)
            #expect(pre.allSatisfy { $0.token == nil })
            #expect(pre.map(\.authorized) == [true, false, false, true, true])
            #expect(pre[1].error?.code == "preauthorization_denied_by_mvpd")
            #expect(pre[1].error?.details == "Your package does not include this channel.")
            let denied = try await tv.decisions("authorize", ["mature-show"])
            #expect(denied.first?.authorized == false)
            #expect(denied.first?.token == nil)
            #expect(denied.first?.error?.code == "authorization_denied_by_mvpd")

            let six = try await tv.raw(
                "POST", "tvekit-sandbox/decisions/preauthorize/SandboxCable", json: #"{"resources":["a","b","c","d","e","f"]}"#)
            #expect(six.status == 400)
            #expect(six.json["code"] as? String == "too_many_resources")
            let two = try await tv.raw("POST", "tvekit-sandbox/decisions/authorize/SandboxCable", json: #"{"resources":["a","b"]}"#)
            #expect(two.status == 400)
            #expect(two.json["code"] as? String == "too_many_resources")
            let empty = try await tv.raw("POST", "tvekit-sandbox/decisions/authorize/SandboxCable", json: #"{"resources":[]}"#)
            #expect(empty.json["code"] as? String == "invalid_parameter_resources")
        }
    }

    @Test("TempPass: choosing it authorizes at once (temporary profile, source temppass), and it runs out")
    func tempPassStartAndExpiry() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let session = try await tv.createSession(mvpd: "SandboxTempPass")
            #expect(session.actionName == "authorize")
            #expect(session.actionType == "direct")
            #expect(session.reasonType == "temporary")
            #expect(session.code == nil)
            let profile = try #require(try await tv.profiles()["SandboxTempPass"])
            #expect(profile._type == "temporary")
            #expect(profile.notAfter == sandbox.clock.nowMilliseconds + 3_600_000)
            let decision = try #require(try await tv.decisions("authorize", mvpd: "SandboxTempPass", ["news"]).first)
            #expect(decision.authorized)
            #expect(decision.source == "temppass")
            #expect(decision.token?.serializedToken != nil)

            sandbox.clock.advance(seconds: 3601)
            let expired = try #require(try await tv.decisions("authorize", mvpd: "SandboxTempPass", ["news"]).first)
            #expect(expired.authorized == false)
            #expect(expired.error?.code == "temporary_access_duration_limit_exceeded")
            let again = try await tv.raw(
                "POST", "tvekit-sandbox/sessions",
                form: [("mvpd", "SandboxTempPass"), ("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")])
            #expect(again.status == 403)
            #expect(again.json["code"] as? String == "temporary_access_duration_limit_exceeded")

            // A made-up identity does not renew an ordinary TempPass, and neither does registering the app again.
            var headers = tv.headers
            headers["AP-TempPass-Identity"] = PassAPIv2.TempPassIdentity(values: ["email": "viewer@example.com"]).header
            let form = [("mvpd", "SandboxTempPass"), ("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")]
            #expect(try await tv.raw("POST", "tvekit-sandbox/sessions", form: form, headers: headers).status == 403)
            let reregistered = V2Device(sandbox, bearer: try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock))
            #expect(try await reregistered.raw("POST", "tvekit-sandbox/sessions", form: form).status == 403)

            // Promotional TempPass: keyed by the identity (required), so another identity starts a new pass.
            let promo = [("mvpd", "SandboxPromoPass"), ("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")]
            let withoutIdentity = try await tv.raw("POST", "tvekit-sandbox/sessions", form: promo)
            #expect(withoutIdentity.json["code"] as? String == "invalid_header_identity_for_temporary_access")
            let promotional = try await tv.raw("POST", "tvekit-sandbox/sessions", form: promo, headers: headers)
            #expect(promotional.status == 200)
            #expect(promotional.json["reasonType"] as? String == "temporary")
        }
    }

    @Test("logout: logout with the MVPD's page, complete without one, invalid with no profile")
    func logout() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            _ = try await tv.login()
            let output = try await tv.client.getLogoutForMvpdUsingGET(
                path: .init(mvpd: "SandboxCable", serviceProvider: V2Device.serviceProvider),
                query: .init(redirectUrl: "adobepass://ios.app"),
                headers: .init(apDeviceIdentifier: tv.device.header, xDeviceInfo: V2Device.deviceInfo.header))
            let logout = try #require(try output.ok.body.json.logouts?.additionalProperties["SandboxCable"])
            #expect(logout.actionName == "logout")
            #expect(logout.url?.hasPrefix("/idp/SandboxCable/logout?") == true)
            #expect(try await tv.profiles().isEmpty)
            let second = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxCable")
            #expect(second.status == 200)
            #expect(
                (second.json["logouts"] as? [String: Any])?["SandboxCable"].map { ($0 as? [String: Any])?["actionName"] as? String }
                    == "invalid")
        }
    }

    @Test("configuration: the requestor and its MVPDs, TempPass included, in Adobe's shape")
    func configuration() async throws {
        try await withSandbox { sandbox in
            let output = try await V2Device(sandbox).client.handleRequestUsingGET(path: .init(serviceProvider: V2Device.serviceProvider))
            let requestor = try #require(try output.ok.body.json.requestor)
            #expect(requestor.id == "tvekit-sandbox")
            #expect(requestor.mvpds?.map(\.id) == ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"])
            #expect(requestor.mvpds?.last?.isTempPass == true)
            #expect(requestor.mvpds?[1].enablePlatformServices == true)
            #expect(requestor.mvpds?[1].boardingStatus == "SUPPORTED")
        }
    }
}
