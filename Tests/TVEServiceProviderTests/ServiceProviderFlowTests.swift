import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import Testing
import TVECrypto
import TVEMetadata
import TVESAML
import TVEPassAPI
import TVESandbox
@testable import TVEServiceProvider
import TVETokens

@Suite("Local service provider: authentication")
struct AuthenticationFlowTests {
    @Test("browser login: authenticate → MVPD login form → wrong password → sign in → assertion consumer → the app's redirect URL")
    func browserLogin() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authenticationTTL = 3600
        try await withSandbox(configuration) { sandbox in
            #expect(try await sandbox.api("api/v1/checkauthn").status == 403)
            #expect(try await sandbox.api("api/v1/tokens/authn").status == 404)
            // A wrong password stays on the form with a 401, and authenticates nothing.
            let (failed, failedPages) = try await sandbox.browserLogin(password: "wrong")
            #expect(failed == nil)
            #expect(failedPages.last?.status == 401)
            #expect(failedPages.last?.text.contains("Wrong username or password") == true)
            #expect(try await sandbox.api("api/v1/checkauthn").status == 403)

            let (location, pages) = try await sandbox.browserLogin()
            #expect(location == "adobepass://ios.app")
            #expect(pages.first?.status == 302)
            #expect(pages.first?.header("Location")?.hasPrefix("/idp/SandboxCable/login?") == true)
            #expect(pages.dropFirst().first?.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(pages.contains { $0.form?.action == "/sp/saml/SAMLAssertionConsumer" })

            #expect(try await sandbox.api("api/v1/checkauthn").status == 200)
            let authn = try await sandbox.api("api/v1/tokens/authn")
            #expect(authn.status == 200)
            #expect(authn.json["mvpd"] as? String == "SandboxCable")
            #expect(authn.json["userId"] as? String == "viewer")
            #expect(authn.json["requestor"] as? String == ProviderHarness.requestor)
            #expect(Int64(authn.json["expires"] as? String ?? "") == sandbox.clock.nowMilliseconds + 3_600_000)
            // Another device is not authenticated.
            #expect(try await sandbox.api("api/v1/checkauthn", device: "device-2").status == 403)

            // The authentication expires after the configured TTL: 410 from tokens/authn, 403 from checkauthn.
            sandbox.clock.advance(seconds: 3601)
            #expect(try await sandbox.api("api/v1/tokens/authn").status == 410)
            #expect(try await sandbox.api("api/v1/checkauthn").status == 403)
        }
    }

    @Test("rejectsOpenRedirect: redirect_url must be one of the requestor's; without one the login ends on a page")
    func rejectsOpenRedirect() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors[0].redirectURLs = ["adobepass://ios.app", "adbe.tvekit.test://done"]
        try await withSandbox(configuration) { sandbox in
            let (location, pages) = try await sandbox.browserLogin(redirect: nil)
            #expect(location == nil)
            #expect(pages.last?.status == 200 && pages.last?.text.contains("You are signed in") == true)
            #expect(try await sandbox.browserLogin(device: "device-2", redirect: "adbe.tvekit.test://done").0 == "adbe.tvekit.test://done")
            let code = try await sandbox.registrationCode(device: "device-3")
            for bad in [
                "https://evil.example/", "adobepass://ios.app.evil", "javascript:alert(1)", "data:text/html,x", "adobepass://android.app",
            ] {
                let response = try await sandbox.http.send(
                    "GET", "api/v1/authenticate",
                    query: [
                        ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", code), ("redirect_url", bad),
                    ])
                #expect(response.status == 403, "redirect_url \(bad)")
            }
            let unknownMVPD = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", ProviderHarness.requestor), ("mso_id", "Nope"), ("reg_code", code),
                ])
            #expect(unknownMVPD.status == 400)
            let unknownRequestor = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", "nope"), ("mso_id", "SandboxCable"), ("reg_code", code),
                ])
            #expect(unknownRequestor.status == 400)
        }
    }

    @Test("rejectsDeviceFixation: a bare deviceId needs the app's credential; a registration code serves one login")
    func rejectsDeviceFixation() async throws {
        try await withSandbox { sandbox in
            let bare = [("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("deviceId", "victim")]
            #expect(try await sandbox.http.send("GET", "api/v1/authenticate", query: bare).status == 401)
            #expect(
                try await sandbox.http.send("GET", "api/v1/authenticate", query: bare, headers: ["Authorization": sandbox.bearer]).status
                    == 302)
            // A code that completed a login cannot start another.
            let code = try await sandbox.registrationCode(device: "tv-1")
            #expect(try await sandbox.browserLogin(regCode: code).0 == "adobepass://ios.app")
            let again = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", code),
                ])
            #expect(again.status == 404)
            // A code deleted while its login is pending does not complete it.
            let deleted = try await sandbox.registrationCode(device: "tv-2")
            let start = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", deleted),
                ])
            let page = try await sandbox.http.send("GET", try #require(start.header("Location")))
            let form = try #require(page.form)
            let signed = try await sandbox.http.send(
                "POST", form.action, form: form.fields + [("username", "viewer"), ("password", "sandbox-password")])
            #expect(
                try await sandbox.http.send(
                    "DELETE", "reggie/v1/tvekit-sandbox/regcode/\(deleted)", headers: ["Authorization": sandbox.bearer]
                ).status == 204)
            let consumed = try await sandbox.http.send("POST", "sp/saml/SAMLAssertionConsumer", form: try #require(signed.form).fields)
            #expect(consumed.status == 403)
            #expect(try await sandbox.api("api/v1/checkauthn", device: "tv-2").status == 403)
            // A code bound to an MVPD serves only that MVPD's login.
            let bound = try await sandbox.registrationCode(device: "tv-3", mvpd: "SandboxSSO")
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/authenticate",
                    query: [
                        ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", bound),
                    ]
                ).status == 400)
        }
    }

    @Test("rejectsCrossMVPDResponse: a login pending for one MVPD cannot be completed by another MVPD's identity provider")
    func rejectsCrossMVPDResponse() async throws {
        try await withSandbox { sandbox in
            let code = try await sandbox.registrationCode()
            let start = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", code),
                ])
            let page = try await sandbox.http.send("GET", try #require(start.header("Location")))
            let form = try #require(page.form)
            let other = try await sandbox.http.send(
                "POST", "/idp/SandboxSSO/login",
                form: form.fields + [("username", "sso-viewer"), ("password", "sandbox-password")])
            let response = try await sandbox.http.send("POST", "sp/saml/SAMLAssertionConsumer", form: try #require(other.form).fields)
            #expect(response.status == 403)
            #expect(response.text.contains("assertion.issuer") || response.text.contains("response.issuer"))
            #expect(try await sandbox.api("api/v1/checkauthn").status == 403)
        }
    }

    @Test("rejectsReplayedAssertion: the same assertion cannot establish a second session, even for the same request")
    func rejectsReplayedAssertion() async throws {
        try await withSandbox { sandbox in
            let provider = sandbox.provider
            let user = try #require(provider.configuration.mvpds.first?.users.first)
            let response = try provider.identityProvider.signedResponse(mvpdID: "SandboxCable", user: user, inResponseTo: "_request-1")
            try provider.establishSession(
                samlResponse: response, requestor: ProviderHarness.requestor, client: sandbox.client, mvpdID: "SandboxCable",
                deviceID: "d1",
                requestID: "_request-1", platformSSO: false)
            #expect(throws: ServiceProviderError.self) {
                try provider.establishSession(
                    samlResponse: response, requestor: ProviderHarness.requestor, client: sandbox.client, mvpdID: "SandboxCable",
                    deviceID: "d2",
                    requestID: "_request-1", platformSSO: false)
            }
            #expect(try await sandbox.api("api/v1/checkauthn", device: "d1").status == 200)
            #expect(try await sandbox.api("api/v1/checkauthn", device: "d2").status == 403)
        }
    }

    /// Starts a login and returns the IdP's auto-post form fields (SAMLResponse, RelayState) without posting them.
    func pendingACSPost(_ sandbox: ProviderHarness, device: String = "device-1") async throws -> [(String, String)] {
        let code = try await sandbox.registrationCode(device: device)
        let start = try await sandbox.http.send(
            "GET", "api/v1/authenticate",
            query: [
                ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", code),
                ("redirect_url", "adobepass://ios.app"),
            ])
        let location = try #require(start.header("Location"))
        let page = try await sandbox.http.send("GET", location)
        let form = try #require(page.form)
        let signed = try await sandbox.http.send(
            "POST", form.action, form: form.fields + [("username", "viewer"), ("password", "sandbox-password")])
        return try #require(signed.form).fields
    }

    @Test("rejectsReplayedAssertionConsumerPost: the relay state and the assertion are single use")
    func rejectsReplayedAssertionConsumerPost() async throws {
        try await withSandbox { sandbox in
            let fields = try await pendingACSPost(sandbox)
            #expect(try await sandbox.http.send("POST", "sp/saml/SAMLAssertionConsumer", form: fields).status == 302)
            #expect(try await sandbox.http.send("POST", "sp/saml/SAMLAssertionConsumer", form: fields).status == 400)
            // The same response with a fresh relay state (of another pending login) answers another request: refused.
            let other = try await pendingACSPost(sandbox, device: "device-2")
            let spliced = fields.filter { $0.0 == "SAMLResponse" } + other.filter { $0.0 == "RelayState" }
            let response = try await sandbox.http.send("POST", "sp/saml/SAMLAssertionConsumer", form: spliced)
            #expect(response.status == 403)
            #expect(response.text.contains("response.inResponseTo") || response.text.contains("subjectConfirmation"))
            #expect(try await sandbox.api("api/v1/checkauthn", device: "device-2").status == 403)
        }
    }

    @Test("rejectsForgedIdPResponse: a response signed by another key, or for another audience, authenticates nothing")
    func rejectsForgedIdPResponse() async throws {
        try await withSandbox { sandbox in
            let forger = try RSAPrivateKey(keySizeInBits: 2048)
            for (key, audience) in [
                (forger, sandbox.provider.configuration.spEntityID), (sandbox.keys.identityProviderKey, "urn:other-sp"),
            ] {
                let fields = try await pendingACSPost(sandbox)
                let relay = try #require(fields.first { $0.0 == "RelayState" }?.1)
                let original = try #require(fields.first { $0.0 == "SAMLResponse" }?.1)
                let xml = String(decoding: try Base64.decode(original), as: UTF8.self)
                let requestID = try #require(HTTPResult.capture(#"InResponseTo="([^"]*)""#, in: xml).first)
                let builder = SAMLResponseBuilder(
                    issuer: "urn:tvekit:idp:SandboxCable", destination: sandbox.provider.configuration.acsURL,
                    audience: audience, inResponseTo: requestID, nameID: "viewer",
                    issueInstant: Date(timeIntervalSince1970: Double(sandbox.clock.nowMilliseconds) / 1000))
                let forged = Base64.encode(try SAMLSigner(privateKey: key).sign(Array(builder.xml().utf8)))
                let response = try await sandbox.http.send(
                    "POST", "sp/saml/SAMLAssertionConsumer", form: [("SAMLResponse", forged), ("RelayState", relay)])
                #expect(response.status == 403)
                #expect(try await sandbox.api("api/v1/checkauthn").status == 403)
            }
        }
    }

    @Test("second screen: regcode → login bound to the code → checkauthn/{code}; unknown codes are 404")
    func secondScreen() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(.init(id: "tvekit-other", mvpds: ["SandboxCable"]))
        try await withSandbox(configuration) { sandbox in
            let created = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode",
                form: [("deviceId", "tv-1"), ("device_info", "e30=")], headers: ["Authorization": sandbox.bearer])
            #expect(created.status == 201)
            let code = try #require(created.json["code"] as? String)
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn/\(code)", query: [("requestor", ProviderHarness.requestor)],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 403)
            let (location, _) = try await sandbox.browserLogin(regCode: code, redirect: nil)
            #expect(location == nil)
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn/\(code)", query: [("requestor", ProviderHarness.requestor)],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 200)
            // The TV itself (the code's device) is now authenticated.
            #expect(try await sandbox.api("api/v1/checkauthn", device: "tv-1").status == 200)
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn/NOPE234", query: [("requestor", ProviderHarness.requestor)],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 404)
            #expect(
                try await sandbox.http.send("GET", "api/v1/checkauthn/\(code)", query: [("requestor", ProviderHarness.requestor)]).status
                    == 401)
            #expect(
                try await sandbox.http.send("GET", "api/v1/checkauthn/NOPE234", query: [("requestor", ProviderHarness.requestor)]).status
                    == 401)
            let badCode = try await sandbox.http.send(
                "GET", "api/v1/authenticate",
                query: [
                    ("requestor_id", ProviderHarness.requestor), ("mso_id", "SandboxCable"), ("reg_code", "NOPE234"),
                ])
            #expect(badCode.status == 404)
            // Another requestor's code (a second requestor served by the same MVPD) is not found for this one.
            let otherCode = try await sandbox.registrationCode(device: "tv-9")
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/authenticate",
                    query: [
                        ("requestor_id", "tvekit-other"), ("mso_id", "SandboxCable"), ("reg_code", otherCode),
                    ]
                ).status == 404)
            // The access token is bound to the requestor it first called: it cannot even ask the other requestor.
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn/\(code)", query: [("requestor", "tvekit-other")],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 401)
        }
    }

    @Test("platform SSO: profile request → the provider's SAML response → token exchange (204) → authenticated; tokenSource Apple")
    func platformSSO() async throws {
        try await withSandbox { sandbox in
            let payload = try await sandbox.api("api/v1/tvekit-sandbox/profile-requests/SandboxSSO", [("deviceType", "tvOS")])
            #expect(payload.status == 200)
            #expect(payload.header("Content-Type") == "application/octet-stream")
            let requestID = payload.text
            let sso = try await sandbox.http.send(
                "POST", "idp/SandboxSSO/sso",
                form: [
                    ("username", "sso-viewer"), ("password", "sandbox-password"), ("request_id", requestID),
                ])
            let samlResponse = try #require(sso.json["SAMLResponse"] as? String)
            // The provider's response carries the MVPD's required metadata fields as attributes.
            let xml = String(decoding: try Base64.decode(samlResponse), as: UTF8.self)
            #expect(xml.contains("Name=\"userID\"") && xml.contains("Name=\"zip\""))

            let exchange = [
                ("requestor", ProviderHarness.requestor), ("deviceId", "device-1"), ("mvpd", "SandboxSSO"), ("deviceType", "tvOS"),
                ("SAMLResponse", samlResponse),
            ]
            #expect(
                try await sandbox.http.send("POST", "api/v1/tokens/authn", form: exchange, headers: ["Authorization": sandbox.bearer])
                    .status == 204)
            #expect(try await sandbox.api("api/v1/checkauthn").status == 200)
            #expect(try await sandbox.api("api/v1/tokens/authn").json["userId"] as? String == "u-0002")
            // Replaying the exchange: the profile request was consumed (and the assertion is single use).
            let replay = try await sandbox.http.send(
                "POST", "api/v1/tokens/authn", form: exchange, headers: ["Authorization": sandbox.bearer])
            #expect(replay.status == 403)

            let metadata = try await sandbox.api("api/v1/tokens/usermetadata")
            let decrypted = try MetadataDecryptor(privateKey: sandbox.keys.metadataKey).decrypt(jsonText: metadata.body)
            #expect(decrypted.tokenSource == "Apple")
            #expect(decrypted.userID == "u-0002")
        }
    }

    @Test("rejectsUnsolicitedSSOExchange: no profile request for the device, another device's request, a non-SSO MVPD, no credential")
    func rejectsUnsolicitedSSOExchange() async throws {
        try await withSandbox { sandbox in
            let requestID = try await sandbox.api("api/v1/tvekit-sandbox/profile-requests/SandboxSSO", device: "device-1").text
            let sso = try await sandbox.http.send(
                "POST", "idp/SandboxSSO/sso",
                form: [
                    ("username", "sso-viewer"), ("password", "sandbox-password"), ("request_id", requestID),
                ])
            let samlResponse = try #require(sso.json["SAMLResponse"] as? String)
            func exchange(device: String, mvpd: String = "SandboxSSO", authorization: String?) async throws -> Int {
                try await sandbox.http.send(
                    "POST", "api/v1/tokens/authn",
                    form: [
                        ("requestor", ProviderHarness.requestor), ("deviceId", device), ("mvpd", mvpd), ("SAMLResponse", samlResponse),
                    ],
                    headers: authorization.map { ["Authorization": $0] } ?? [:]
                ).status
            }
            #expect(try await exchange(device: "device-2", authorization: sandbox.bearer) == 403)
            #expect(try await exchange(device: "device-1", mvpd: "SandboxCable", authorization: sandbox.bearer) == 400)
            #expect(try await exchange(device: "device-1", authorization: nil) == 401)
            #expect(try await sandbox.api("api/v1/tvekit-sandbox/profile-requests/SandboxCable").status == 400)
            #expect(
                try await sandbox.http.send(
                    "POST", "idp/SandboxSSO/sso",
                    form: [
                        ("username", "sso-viewer"), ("password", "nope"), ("request_id", requestID),
                    ]
                ).status == 401)
            // The genuine exchange still works once.
            #expect(try await exchange(device: "device-1", authorization: sandbox.bearer) == 204)
        }
    }

    @Test("logout ends the authentication and every authorization of the device")
    func logout() async throws {
        try await withSandbox { sandbox in
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 200)
            #expect(try await sandbox.api("api/v1/logout", method: "DELETE").status == 204)
            #expect(try await sandbox.api("api/v1/checkauthn").status == 403)
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 412)
            #expect(try await sandbox.api("api/v1/logout", method: "DELETE").status == 204)
            #expect(try await sandbox.api("api/v1/logout", method: "DELETE", authorization: "Bearer nope").status == 401)
        }
    }
}

@Suite("Local service provider: authorization, media tokens, metadata")
struct AuthorizationFlowTests {
    @Test("authorize, tokens/authz and tokens/media: rules and MVPD denials, 412/404/410, a media token that verifies")
    func authorization() async throws {
        try await withSandbox { sandbox in
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 403)
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 412)
            #expect(try await sandbox.api("api/v1/tokens/media", [("resource", "news")]).status == 412)
            _ = try await sandbox.browserLogin()

            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 404)
            let authorized = try await sandbox.api("api/v1/authorize", [("resource", "news")])
            #expect(authorized.status == 200)
            #expect(authorized.json["mvpd"] as? String == "SandboxCable")
            #expect(authorized.json["resource"] as? String == "news")
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 200)
            #expect(try await sandbox.api("api/v1/authorize").status == 400)

            // The subscriber's parental controls and the MVPD's package rules, with the MVPD's message.
            let parental = try await sandbox.api("api/v1/authorize", [("resource", "mature-show")])
            #expect(parental.status == 403)
            #expect(parental.json["details"] as? String == "Your parental controls block this program.")
            let package = try await sandbox.api("api/v1/authorize", [("resource", "premium-sports")])
            #expect(package.status == 403)
            #expect(package.json["details"] as? String == "Your package does not include this channel.")
            #expect(try await sandbox.api("api/v1/tokens/media", [("resource", "mature-show")]).status == 404)

            for path in ["api/v1/tokens/media", "api/v1/mediatoken"] {
                let media = try await sandbox.api(path, [("resource", "news")])
                #expect(media.status == 200)
                let serialized = try #require(media.json["serializedToken"] as? String)
                let verifier = try MediaTokenVerifier(
                    trustedKeys: [sandbox.keys.mediaTokenKey.publicKey], requestorID: ProviderHarness.requestor,
                    clock: sandbox.clock)
                let result = verifier.verify(serialized, resourceID: "news")
                #expect(result.result == .validToken)
                #expect(result.token?.timeToLive == 420_000)
                #expect(result.token?.mvpdId == "SandboxCable")
            }
            // The app's access token expires too (6 hours): the API answers 401 until the app gets a new one.
            sandbox.clock.advance(seconds: 21_601)
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 401)
        }
    }

    @Test("authorizations expire before the authentication does: 410, then authorize again")
    func authorizationExpiry() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.authorizationTTL = 60
        configuration.mediaTokenTTL = 90_000
        try await withSandbox(configuration) { sandbox in
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 200)
            let media = try await sandbox.api("api/v1/tokens/media", [("resource", "news")])
            #expect(Int64(media.json["expires"] as? String ?? "") == sandbox.clock.nowMilliseconds + 90_000)
            sandbox.clock.advance(seconds: 61)
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 410)
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 410)
            #expect(try await sandbox.api("api/v1/tokens/media", [("resource", "news")]).status == 410)
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 200)
        }
    }

    @Test("a requestor's resource list: resources it does not offer are denied")
    func resourceList() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors[0].resources = ["news", "movies"]
        try await withSandbox(configuration) { sandbox in
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "movies")]).status == 200)
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "sports")]).status == 403)
        }
    }

    @Test("preauthorize: per-resource decisions (comma list and repeats), the limit, legacy and enhanced item errors")
    func preauthorize() async throws {
        try await withSandbox { sandbox in
            #expect(try await sandbox.api("api/v1/preauthorize", [("resource", "news")]).status == 403)
            _ = try await sandbox.browserLogin()
            let answer = try await sandbox.api("api/v1/preauthorize", [("resource", "news,mature-show"), ("resource", "premium-sports")])
            #expect(answer.status == 200)
            let items = answer.json["resources"] as? [[String: Any]] ?? []
            #expect(items.compactMap { $0["id"] as? String } == ["news", "mature-show", "premium-sports"])
            #expect(items.compactMap { $0["authorized"] as? Bool } == [true, false, false])
            #expect(items[1]["message"] as? String == "Your parental controls block this program.")
            // Preauthorization is a hint: it authorizes nothing.
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 404)
            let many = (0...100).map { "r\($0)" }.joined(separator: ",")
            #expect(try await sandbox.api("api/v1/preauthorize", [("resource", many)]).status == 400)
            #expect(try await sandbox.api("api/v1/preauthorize").status == 400)
        }
        var enhanced = ServiceProviderConfiguration.sandbox
        enhanced.enhancedErrors = true
        try await withSandbox(enhanced) { sandbox in
            _ = try await sandbox.browserLogin()
            let answer = try await sandbox.api("api/v1/preauthorize", [("resource", "news,mature-show")])
            let items = answer.json["resources"] as? [[String: Any]] ?? []
            let error = items.last?["error"] as? [String: Any] ?? [:]
            #expect(error["code"] as? String == "authorization_denied_by_mvpd")
            #expect(error["status"] as? Int == 403)
            #expect(error["details"] as? String == "Your parental controls block this program.")
            #expect(items.first?["error"] == nil)
            let many = (0...100).map { "r\($0)" }.joined(separator: ",")
            #expect(try await sandbox.api("api/v1/preauthorize", [("resource", many)]).json["code"] as? String == "too_many_resources")
        }
    }

    @Test("tokens/usermetadata: the configured keys encrypted for the programmer (RSA blocks or JWE), the rest in clear")
    func userMetadata() async throws {
        for encoding in ["rsa", "jwe"] {
            var configuration = ServiceProviderConfiguration.sandbox
            configuration.requestors[0].metadataEncryption = encoding
            try await withSandbox(configuration) { sandbox in
                #expect(try await sandbox.api("api/v1/tokens/usermetadata").status == 412)
                _ = try await sandbox.browserLogin()
                let response = try await sandbox.api("api/v1/tokens/usermetadata")
                #expect(response.status == 200)
                let document = try UserMetadataDocument(jsonText: response.body)
                #expect(Set(document.encryptedKeys) == ["zip", "householdID"])
                if case .encrypted(let ciphertext)? = document.entries["zip"] {
                    #expect(MetadataDecryptor.encoding(of: ciphertext) == (encoding == "jwe" ? .jwe : .rsaBlocks))
                }
                let metadata = try MetadataDecryptor(privateKey: sandbox.keys.metadataKey).decrypt(document)
                #expect(metadata.zip == ["12345"])
                #expect(metadata.householdID == "hh-0001")
                #expect(metadata.maxRating?.mpaa == "PG-13")
                #expect(metadata.tokenSource == nil)
            }
        }
    }
}

@Suite("Local service provider: clients, errors, throttling")
struct ServiceProviderPolicyTests {
    @Test("legacy clients: a clientless HMAC header or a signed requestor ID instead of a Bearer token")
    func legacyClients() async throws {
        try await withSandbox { sandbox in
            let signer = try ClientlessRequestSigner(
                requestorID: ProviderHarness.requestor, publicKey: "sandbox-public-key",
                secret: SecureBytes(utf8: "sandbox-secret"), clock: sandbox.clock)
            let header = try signer.authorizationHeader(method: "GET", requestURI: "/api/v1/config/tvekit-sandbox")
            #expect(try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox", headers: ["Authorization": header]).status == 200)
            let signed = try SignedRequestorID.sign(ProviderHarness.requestor, with: sandbox.keys.requestorKey)
            #expect(
                try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox", query: [("signed_requestor_id", signed)]).status == 200)
            let regcode = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "tv"), ("device_info", "e30=")],
                headers: ["Authorization": try signer.authorizationHeader(method: "POST", requestURI: "/regcode")])
            #expect(regcode.status == 201)
        }
    }

    @Test("rejectsClientlessReplayAndForgery: a reused nonce, a stale time, a wrong secret, another requestor or method")
    func rejectsClientlessReplayAndForgery() async throws {
        try await withSandbox { sandbox in
            func status(_ header: String, method: String = "GET") async throws -> Int {
                try await sandbox.http.send(method, "api/v1/config/tvekit-sandbox", headers: ["Authorization": header]).status
            }
            let signer = try ClientlessRequestSigner(
                requestorID: ProviderHarness.requestor, publicKey: "sandbox-public-key",
                secret: SecureBytes(utf8: "sandbox-secret"), clock: sandbox.clock)
            let once = try signer.authorizationHeader(method: "GET", requestURI: "/api/v1/config/tvekit-sandbox")
            #expect(try await status(once) == 200)
            #expect(try await status(once) == 401)
            let stale = try signer.authorizationHeader(
                method: "GET", requestURI: "/x", nonce: UUID().uuidString,
                requestTime: sandbox.clock.nowMilliseconds - 301_000)
            #expect(try await status(stale) == 401)
            let wrongSecret = try ClientlessRequestSigner(
                requestorID: ProviderHarness.requestor, publicKey: "sandbox-public-key",
                secret: SecureBytes(utf8: "guess"), clock: sandbox.clock)
            #expect(try await status(try wrongSecret.authorizationHeader(method: "GET", requestURI: "/x")) == 401)
            let otherRequestor = try ClientlessRequestSigner(
                requestorID: "other", publicKey: "sandbox-public-key",
                secret: SecureBytes(utf8: "sandbox-secret"), clock: sandbox.clock)
            #expect(try await status(try otherRequestor.authorizationHeader(method: "GET", requestURI: "/x")) == 401)
            #expect(try await status(try signer.authorizationHeader(method: "POST", requestURI: "/x")) == 401)
        }
    }

    @Test("rejectsForeignRequestorSignature: a requestor ID signed by another key, or another requestor's ID")
    func rejectsForeignRequestorSignature() async throws {
        try await withSandbox { sandbox in
            let foreign = try SignedRequestorID.sign(ProviderHarness.requestor, with: sandbox.keys.metadataKey)
            #expect(
                try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox", query: [("signed_requestor_id", foreign)]).status == 401)
            let other = try SignedRequestorID.sign("other", with: sandbox.keys.requestorKey)
            #expect(
                try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox", query: [("signed_requestor_id", other)]).status == 401)
            #expect(
                try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox", query: [("signed_requestor_id", "!!")]).status == 401)
        }
    }

    @Test("every API call needs a client credential and a well-formed device; the error shapes are legacy or enhanced")
    func errorShapes() async throws {
        try await withSandbox { sandbox in
            let legacy = try await sandbox.api("api/v1/checkauthn", authorization: "Bearer forged")
            #expect(legacy.status == 401)
            #expect(Set(legacy.json.keys) == ["status", "message", "details"])
            for path in [
                "api/v1/checkauthn", "api/v1/tokens/authn", "api/v1/authorize", "api/v1/tokens/authz", "api/v1/tokens/media",
                "api/v1/preauthorize", "api/v1/tokens/usermetadata", "api/v1/tvekit-sandbox/profile-requests/SandboxSSO",
            ] {
                #expect(try await sandbox.api(path, [("resource", "news")], authorization: "Bearer forged").status == 401, "\(path)")
            }
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn", query: [("requestor", ProviderHarness.requestor)],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 400)
            #expect(try await sandbox.api("api/v1/checkauthn", device: String(repeating: "d", count: 257)).status == 400)
            #expect(try await sandbox.api("api/v1/checkauthn", device: "tab\there").status == 400)
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/checkauthn", query: [("requestor", "nope"), ("deviceId", "d")],
                    headers: ["Authorization": sandbox.bearer]
                ).status == 400)
        }
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.enhancedErrors = true
        try await withSandbox(configuration) { sandbox in
            let enhanced = try await sandbox.api("api/v1/checkauthn", authorization: "Bearer forged")
            #expect(enhanced.status == 401)
            #expect(Set(enhanced.json.keys) == ["action", "status", "code", "message", "details", "helpUrl", "trace"])
            #expect(enhanced.json["code"] as? String == "invalid_access_token_client_application")
            #expect(enhanced.json["action"] as? String == "application-registration")
            let missing = try await sandbox.api("api/v1/tokens/authz", [("resource", "news")])
            #expect(missing.json["code"] as? String == "authentication_session_missing" && missing.status == 412)
        }
    }

    @Test("throttling: a burst of 10 per device, then 429 with Retry-After until a second passes; off by default")
    func throttling() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.throttling = true
        try await withSandbox(configuration) { sandbox in
            // Registration took 2 of the 10.
            var statuses: [Int] = []
            for _ in 0..<9 { statuses.append(try await sandbox.api("api/v1/config/tvekit-sandbox").status) }
            #expect(statuses == Array(repeating: 200, count: 8) + [429])
            let throttled = try await sandbox.api("api/v1/config/tvekit-sandbox")
            #expect(throttled.status == 429 && throttled.header("Retry-After") == "1")
            // X-Forwarded-For is not trusted by default, doubled slashes are the same path, and the login pages count too.
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/config/tvekit-sandbox",
                    headers: [
                        "Authorization": sandbox.bearer,
                        "X-Forwarded-For": "192.0.2.7",
                    ]
                ).status == 429)
            #expect(
                try await sandbox.http.send("GET", "//api/v1/config/tvekit-sandbox", headers: ["Authorization": sandbox.bearer]).status
                    == 429)
            #expect(
                try await sandbox.http.send("GET", "idp/SandboxCable/login", query: [("request_id", "_x"), ("RelayState", "y")]).status
                    == 429)
            sandbox.clock.advance(seconds: 1)
            #expect(try await sandbox.api("api/v1/config/tvekit-sandbox").status == 200)
            #expect(try await sandbox.api("api/v1/config/tvekit-sandbox").status == 429)
        }
        configuration.trustsForwardedFor = true
        try await withSandbox(configuration) { sandbox in
            for _ in 0..<12 { _ = try await sandbox.api("api/v1/config/tvekit-sandbox") }
            // Behind a trusted proxy, each forwarded address has its own bucket.
            #expect(
                try await sandbox.http.send(
                    "GET", "api/v1/config/tvekit-sandbox",
                    headers: [
                        "Authorization": sandbox.bearer,
                        "X-Forwarded-For": "192.0.2.7, 10.0.0.1",
                    ]
                ).status == 200)
        }
        try await withSandbox { sandbox in
            for _ in 0..<15 {
                let status = try await sandbox.api("api/v1/config/tvekit-sandbox").status
                #expect(status == 200)
            }
        }
    }

    @Test("an invalid configuration is refused with what is wrong")
    func invalidConfiguration() throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors[0].mvpds.append("Missing")
        configuration.mediaTokenTTL = 0
        let keys = try #require(SharedKeys.sandbox)
        #expect(configuration.problems.count == 2)
        #expect(throws: ServiceProviderError.self) { try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys) }
    }

    @Test("rejectsHTMLInjection: the login page escapes the configured names and refuses odd request IDs")
    func rejectsHTMLInjection() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].displayName = "<script>alert(1)</script> & \"Cable\""
        try await withSandbox(configuration) { sandbox in
            let page = try await sandbox.http.send("GET", "idp/SandboxCable/login", query: [("request_id", "_x"), ("RelayState", "y")])
            #expect(page.status == 200)
            #expect(!page.text.contains("<script>alert"))
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Cable&quot;"))
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'sha256-") == true)
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            let odd = try await sandbox.http.send(
                "GET", "idp/SandboxCable/login", query: [("request_id", "\"><script>"), ("RelayState", "y")])
            #expect(odd.status == 400)
            #expect(!odd.text.contains("<script>"))
            #expect(try await sandbox.http.send("GET", "idp/Nope/login", query: [("request_id", "_x"), ("RelayState", "y")]).status == 400)
        }
    }

    @Test("rejectsControlCharacters: NUL and other control characters in deviceId or resource are a 400")
    func rejectsControlCharacters() async throws {
        try await withSandbox { sandbox in
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/checkauthn", device: "device-1\u{0}x").status == 400)
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news\u{0}")]).status == 400)
            #expect(try await sandbox.api("api/v1/preauthorize", [("resource", "news,bad\u{1}")]).status == 400)
        }
    }

    @Test("a full state table answers 503 instead of growing or evicting live state")
    func capacity() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let clock = TestClock()
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys, clock: clock, stateCapacity: 2)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try await LocalServer.run(router) { url in
            let http = HTTPClient(base: url)
            let bearer = try await registerApp(url, keys: keys, clock: clock)
            var statuses: [Int] = []
            for device in ["a", "b", "c"] {
                statuses.append(
                    try await http.send(
                        "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", device), ("device_info", "e30=")],
                        headers: ["Authorization": bearer]
                    ).status)
            }
            #expect(statuses == [201, 201, 503])
            var logins: [Int] = []
            for device in ["a", "b", "c"] {
                logins.append(
                    try await http.send(
                        "GET", "api/v1/authenticate",
                        query: [
                            ("requestor_id", "tvekit-sandbox"), ("mso_id", "SandboxCable"), ("deviceId", device),
                        ], headers: ["Authorization": bearer]
                    ).status)
            }
            #expect(logins == [302, 302, 503])
            // Once the pending logins expire (10 minutes), the table takes new ones again.
            clock.advance(seconds: 601)
            #expect(
                try await http.send(
                    "GET", "api/v1/authenticate",
                    query: [
                        ("requestor_id", "tvekit-sandbox"), ("mso_id", "SandboxCable"), ("deviceId", "d"),
                    ], headers: ["Authorization": bearer]
                ).status == 302)
        }
    }

    @Test("rejectsInheritedAuthorization: a new login on the device voids the authorizations of the previous subscriber")
    func rejectsInheritedAuthorization() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].users.append(
            .init(
                username: "kid", password: "kid-password", metadata: ["userID": #""u-kid""#],
                deniedResources: ["news": "Not for this profile."]))
        try await withSandbox(configuration) { sandbox in
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 200)
            _ = try await sandbox.browserLogin(username: "kid", password: "kid-password")
            #expect(try await sandbox.api("api/v1/tokens/authn").json["userId"] as? String == "u-kid")
            #expect(try await sandbox.api("api/v1/tokens/authz", [("resource", "news")]).status == 404)
            #expect(try await sandbox.api("api/v1/tokens/media", [("resource", "news")]).status == 404)
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).json["details"] as? String == "Not for this profile.")
        }
    }
}
