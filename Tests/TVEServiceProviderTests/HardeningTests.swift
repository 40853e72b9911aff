import Foundation
import Hummingbird
import Testing
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESandbox
import TVETestSupport
@testable import TVEServiceProvider
import TVETokens

/// Each test is named after the attack it stops.
@Suite("Local service provider: hardening")
struct HardeningTests {
    @Test("anotherClientOnASignedInDevice (v2): another app's token with the same device identifier sees no profile and gets no token")
    func anotherClientOnASignedInDeviceV2() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let code = try await tv.login()
            let intruderBearer = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock)
            let intruder = V2Device(sandbox, bearer: intruderBearer)
            #expect(try await intruder.profiles().isEmpty)
            let decision = try #require(try await intruder.decisions("authorize", ["news"]).first)
            #expect(decision.authorized == false)
            #expect(decision.token == nil)
            #expect(decision.error?.code == "authenticated_profile_missing")
            let byCode = try await intruder.raw("GET", "tvekit-sandbox/profiles/code/\(code)")
            #expect(byCode.status == 400)
            #expect(byCode.json["code"] as? String == "invalid_parameter_code")
            let logout = try await intruder.raw("GET", "tvekit-sandbox/logout/SandboxCable")
            #expect(((logout.json["logouts"] as? [String: Any])?["SandboxCable"] as? [String: Any])?["actionName"] as? String == "invalid")
            // The real device is still signed in.
            #expect(try await tv.profiles()["SandboxCable"] != nil)
        }
    }

    @Test("anotherClientOnASignedInDevice (v1): another client naming the same deviceId gets no token, metadata, logout or code")
    func anotherClientOnASignedInDeviceV1() async throws {
        try await withSandbox { sandbox in
            let (location, _) = try await sandbox.browserLogin()
            #expect(location == "adobepass://ios.app")
            #expect(try await sandbox.api("api/v1/checkauthn").status == 200)
            let code = try await sandbox.registrationCode()
            let intruder = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock)
            #expect(try await sandbox.api("api/v1/checkauthn", authorization: intruder).status == 403)
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")], authorization: intruder).status == 403)
            #expect(try await sandbox.api("api/v1/tokens/media", [("resource", "news")], authorization: intruder).status == 412)
            #expect(try await sandbox.api("api/v1/tokens/usermetadata", authorization: intruder).status == 412)
            #expect(try await sandbox.api("api/v1/logout", method: "DELETE", authorization: intruder).status == 204)
            #expect(try await sandbox.api("api/v1/checkauthn").status == 200)
            let read = try await sandbox.http.send("GET", "reggie/v1/tvekit-sandbox/regcode/\(code)", headers: ["Authorization": intruder])
            #expect(read.status == 404)
            let delete = try await sandbox.http.send(
                "DELETE", "reggie/v1/tvekit-sandbox/regcode/\(code)", headers: ["Authorization": intruder])
            #expect(delete.status == 404)
            #expect(
                try await sandbox.http.send("GET", "reggie/v1/tvekit-sandbox/regcode/\(code)", headers: ["Authorization": sandbox.bearer])
                    .status == 200)
        }
    }

    @Test(
        "clickjackingAndSniffing: every page and every API answer, errors included, forbids framing (X-Frame-Options DENY) and sniffing (nosniff)"
    )
    func clickjackingAndSniffing() async throws {
        try await withSandbox { sandbox in
            let answers = [
                try await sandbox.http.send("GET", "activate/tvekit-sandbox"),  // the second screen's page
                try await sandbox.http.send("GET", "activate/tvekit-sandbox/done"),
                try await sandbox.http.send("GET", "api/v2/tvekit-sandbox/configuration"),  // 401, an Enhanced Error
                try await sandbox.http.send("GET", "api/v2/tvekit-sandbox/configuration", headers: ["Authorization": sandbox.bearer]),
                try await sandbox.http.send("GET", "api/v1/config/tvekit-sandbox"),  // 401, v1
                try await sandbox.http.send("POST", "o/client/token", form: [("client_id", "x"), ("client_secret", "y")]),
                try await sandbox.http.send("GET", "no/such/path"),  // the router's own 404
                try await sandbox.http.send("TRACE", "api/v2/tvekit-sandbox/configuration"),  // 405
            ]
            for answer in answers {
                #expect(answer.header("X-Frame-Options") == "DENY", "\(answer.status) \(answer.text.prefix(80))")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(answer.status) \(answer.text.prefix(80))")
            }
            #expect(answers[0].header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        }
    }

    @Test("cachedSecrets: registration, access token, registration code, media token and v2 answers are Cache-Control: no-store")
    func cachedSecrets() async throws {
        try await withSandbox { sandbox in
            let token = try await sandbox.http.send(
                "POST", "o/client/token", form: [("client_id", "x"), ("client_secret", "y"), ("grant_type", "client_credentials")])
            #expect(token.header("Cache-Control") == "no-store")
            let created = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "device-1")], headers: ["Authorization": sandbox.bearer])
            #expect(created.status == 201)
            #expect(created.header("Cache-Control") == "no-store")
            _ = try await sandbox.browserLogin()
            #expect(try await sandbox.api("api/v1/authorize", [("resource", "news")]).status == 200)
            let media = try await sandbox.api("api/v1/tokens/media", [("resource", "news")])
            #expect(media.status == 200)
            #expect(media.header("Cache-Control") == "no-store")
            let tv = V2Device(sandbox)
            let session = try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("domainName", "tvekit.test")])
            #expect(session.header("Cache-Control") == "no-store")
        }
    }

    @Test("passwordGuessing: wrong passwords stop at the limit per account, even with the right one after it")
    func passwordGuessing() async throws {
        try await withSandbox { sandbox in
            for _ in 0..<5 {
                let answer = try await sandbox.http.send(
                    "POST", "idp/SandboxSSO/sso", form: [("username", "sso-viewer"), ("password", "guess"), ("request_id", "_r1")])
                #expect(answer.status == 401)
            }
            let locked = try await sandbox.http.send(
                "POST", "idp/SandboxSSO/sso", form: [("username", "sso-viewer"), ("password", "sandbox-password"), ("request_id", "_r1")])
            #expect(locked.status == 429)
            #expect(locked.json["status"] as? Int == 429)
            // The login page refuses too, and says so.
            let (_, pages) = try await sandbox.browserLogin(mvpd: "SandboxSSO", username: "sso-viewer")
            #expect(pages.last?.status == 429)
            // Another account is not locked; after the window, the account works again.
            sandbox.clock.advance(seconds: 901)
            let again = try await sandbox.http.send(
                "POST", "idp/SandboxSSO/sso", form: [("username", "sso-viewer"), ("password", "sandbox-password"), ("request_id", "_r1")])
            #expect(again.status == 200)
        }
    }

    @Test("codeGuessing: unknown codes stop at the limit per address, for v1 reg_code, v2 authenticate and the activation page")
    func codeGuessing() async throws {
        try await withSandbox { sandbox in
            for attempt in 0..<20 {
                let path =
                    attempt % 2 == 0 ? "api/v2/authenticate/tvekit-sandbox/GUESS\(attempt)" : "activate/tvekit-sandbox?code=GUESS\(attempt)"
                let answer = try await sandbox.http.send("GET", path)
                #expect(answer.status == 400)
            }
            let real = try await V2Device(sandbox).createSession(mvpd: "SandboxCable")
            let blocked = try await sandbox.http.send("GET", "api/v2/authenticate/tvekit-sandbox/\(try #require(real.code))")
            #expect(blocked.status == 429)
            #expect(blocked.json["code"] as? String == "maximum_attempts_exceeded")
            let v1 = try await sandbox.http.send(
                "GET", "api/v1/authenticate", query: [("requestor_id", "tvekit-sandbox"), ("mso_id", "SandboxCable"), ("reg_code", "NOPE")])
            #expect(v1.status == 429)
            #expect(try await sandbox.http.send("GET", "activate/tvekit-sandbox?code=ANY").status == 429)
        }
    }

    @Test("unescapedQuoteWithCombiningMark: a quote followed by a combining mark is escaped")
    func unescapedQuoteWithCombiningMark() {
        let text = "\"\u{301} onmouseover=alert(1) x=\"\u{301}"
        let escaped = HTMLForm.escape(text)
        #expect(!escaped.unicodeScalars.contains("\""))
        #expect(escaped.hasPrefix("&quot;\u{301}"))
        #expect(HTMLForm.unescape(escaped) == text)
        #expect(HTMLForm.escape("<a href='x'>&") == "&lt;a href=&#39;x&#39;&gt;&amp;")
    }

    @Test(
        "scriptRedirectURI: DCR refuses javascript:, data: and other schemes a browser runs",
        arguments: [
            "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>", "vbscript:x", "file:///etc/passwd", "no scheme",
        ])
    func scriptRedirectURI(uri: String) throws {
        let keys = try #require(SharedKeys.sandbox)
        let registry = ClientRegistry(statementKeys: [keys.softwareStatementKey.publicKey])
        let statement = try SoftwareStatement.issue(subject: "app", issuedAt: 1_700_000_000, signingKey: keys.softwareStatementKey)
        #expect(throws: ClientRegistrationError.self) { try registry.register(softwareStatement: statement.compact, redirectURI: uri) }
        for good in ["https://app.example/cb", "adobepass://ios.app", "com.example.app:/cb"] {
            #expect(try registry.register(softwareStatement: statement.compact, redirectURI: good).redirectURIs == [good])
        }
    }

    @Test("throttleOnTheWholeRouter: the throttle covers the provider's routes only, and v2 answers it in Adobe's shape")
    func throttleOnlyOnTheProvidersRoutes() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.throttling = true
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys, clock: TestClock())
        let router = Router(context: ServerRequestContext.self)
        router.get("health") { _, _ in "ok" }
        provider.addRoutes(to: router)
        try await LocalServer.run(router) { url in
            let http = HTTPClient(base: url)
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await http.send("GET", "api/v2/tvekit-sandbox/configuration").status) }
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
            let throttled = try await http.send("GET", "api/v2/tvekit-sandbox/configuration")
            #expect(throttled.status == 429)
            #expect(throttled.json["code"] as? String == "maximum_attempts_exceeded")
            #expect(throttled.json["action"] as? String == "retry")
            #expect(try await http.send("GET", "health").status == 200)
        }
    }

    @Test("clientless checkauthn with the requestor only in the signed header; a mismatching field stays an error")
    func clientlessRequestorFromHeader() async throws {
        try await withSandbox { sandbox in
            let signer = try ClientlessRequestSigner(
                requestorID: ProviderHarness.requestor, publicKey: "sandbox-public-key",
                secret: SecureBytes(utf8: "sandbox-secret"), clock: sandbox.clock)
            // Registration without device_info, as the public clientless add-on does it.
            let regcode = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "tv")],
                headers: ["Authorization": try signer.authorizationHeader(method: "POST", requestURI: "/regcode")])
            #expect(regcode.status == 201)
            let check = try await sandbox.http.send(
                "GET", "api/v1/checkauthn", query: [("deviceId", "tv")],
                headers: ["Authorization": try signer.authorizationHeader(method: "GET", requestURI: "/checkauthn")])
            #expect(check.status == 403)  // known requestor, valid client, not signed in
            let mismatch = try await sandbox.http.send(
                "GET", "api/v1/checkauthn", query: [("deviceId", "tv"), ("requestor", "someone-else")],
                headers: ["Authorization": try signer.authorizationHeader(method: "GET", requestURI: "/checkauthn")])
            #expect(mismatch.status == 400)
            let badInfo = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode",
                form: [("deviceId", "tv"), ("device_info", String(repeating: "A", count: 5000))],
                headers: ["Authorization": sandbox.bearer])
            #expect(badInfo.status == 400)
            #expect(badInfo.json["message"] != nil)
        }
    }

    @Test("fillingTheCodeTable: one client holds at most 100 live registration codes")
    func fillingTheCodeTable() async throws {
        try await withSandbox { sandbox in
            for index in 0..<100 {
                let created = try await sandbox.http.send(
                    "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "d\(index)")],
                    headers: ["Authorization": sandbox.bearer])
                #expect(created.status == 201)
            }
            let refused = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "d-extra")], headers: ["Authorization": sandbox.bearer])
            #expect(refused.status == 429)
            let other = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock)
            let fine = try await sandbox.http.send(
                "POST", "reggie/v1/tvekit-sandbox/regcode", form: [("deviceId", "d-other")], headers: ["Authorization": other])
            #expect(fine.status == 201)
        }
    }

    @Test("fillingTheSessionAndLoginTables: one client holds 100 live v2 sessions, one code 5 logins in progress")
    func fillingTheSessionAndLoginTables() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let first = try await tv.createSession(mvpd: "SandboxCable")
            let code = try #require(first.code)
            for _ in 0..<4 { #expect(try await sandbox.http.send("GET", "api/v2/authenticate/tvekit-sandbox/\(code)").status == 302) }
            #expect(try await sandbox.http.send("GET", "api/v2/authenticate/tvekit-sandbox/\(code)").status == 302)
            let sixth = try await sandbox.http.send("GET", "api/v2/authenticate/tvekit-sandbox/\(code)")
            #expect(sixth.status == 429)
            for _ in 0..<99 { _ = try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("domainName", "tvekit.test")]) }
            let over = try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("domainName", "tvekit.test")])
            #expect(over.status == 429)
            #expect(over.json["code"] as? String == "maximum_attempts_exceeded")
            let other = V2Device(sandbox, bearer: try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock))
            #expect(try await other.raw("POST", "tvekit-sandbox/sessions", form: [("domainName", "tvekit.test")]).status == 200)
        }
    }

    @Test("fillingTheClientTable: one address registers a bounded number of clients an hour")
    func fillingTheClientTable() throws {
        let keys = try #require(SharedKeys.sandbox)
        let clock = TestClock()
        let registry = ClientRegistry(statementKeys: [keys.softwareStatementKey.publicKey], maximumRegistrationsPerAddress: 3, clock: clock)
        #expect((0..<3).allSatisfy { _ in registry.allowRegistration(from: "192.0.2.1") })
        #expect(!registry.allowRegistration(from: "192.0.2.1"))
        #expect(registry.allowRegistration(from: "192.0.2.2"))
        clock.advance(seconds: 3601)
        #expect(registry.allowRegistration(from: "192.0.2.1"))
    }

    @Test("codeGuessingOnSessions: unknown codes on sessions/{code} and profiles/code/{code} count against the address too")
    func codeGuessingOnSessions() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            for attempt in 0..<20 {
                let path = ["tvekit-sandbox/sessions/GUESS\(attempt)", "tvekit-sandbox/profiles/code/GUESS\(attempt)"][attempt % 2]
                #expect(try await tv.raw("GET", path).status == 400)
            }
            let real = try #require(try await tv.createSession(mvpd: nil).code)
            let blocked = try await tv.raw("GET", "tvekit-sandbox/sessions/\(real)")
            #expect(blocked.status == 429)
            #expect(try await tv.raw("POST", "tvekit-sandbox/sessions/\(real)", form: [("mvpd", "SandboxCable")]).status == 429)
        }
    }

    @Test("fillingTheTokenTable: one client holds 10 live access tokens; an eleventh replaces its oldest")
    func fillingTheTokenTable() throws {
        let keys = try #require(SharedKeys.sandbox)
        let registry = ClientRegistry(statementKeys: [keys.softwareStatementKey.publicKey], maximumTokens: 15, clock: TestClock())
        let statement = try SoftwareStatement.issue(subject: "app", issuedAt: 1_700_000_000, signingKey: keys.softwareStatementKey)
        let client = try registry.register(softwareStatement: statement.compact, redirectURI: nil)
        let tokens = try (0..<11).map { _ in try registry.token(clientID: client.id, clientSecret: client.secret).token }
        #expect(registry.client(forBearer: "Bearer " + tokens[0]) == nil)
        #expect(tokens.dropFirst().allSatisfy { registry.client(forBearer: "Bearer " + $0) == client.id })
        // Another client still gets tokens: the table is not one client's.
        let other = try registry.register(softwareStatement: statement.compact, redirectURI: nil)
        #expect(throws: Never.self) { _ = try registry.token(clientID: other.id, clientSecret: other.secret) }
    }

    @Test("fullAttemptTable: a limiter whose table is full refuses instead of letting new keys through uncounted")
    func fullAttemptTable() throws {
        let limiter = AttemptLimiter(capacity: 3)
        for key in ["a", "b", "c"] { limiter.fail(.code, key, now: 0) }
        #expect(limiter.allows(.code, "d", now: 1))
        limiter.fail(.code, "d", now: 1)
        #expect(!limiter.allows(.code, "e", now: 2))
        #expect(limiter.allows(.code, "e", now: 1_000_000))
    }

    @Test("guessingBehindAProxy: with trustsForwardedFor, attempts count per forwarded address, IPv6 by its /64")
    func guessingBehindAProxy() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.trustsForwardedFor = true
        try await withSandbox(configuration) { sandbox in
            for attempt in 0..<20 {
                let answer = try await sandbox.http.send(
                    "GET", "activate/tvekit-sandbox?code=GUESS\(attempt)", headers: ["X-Forwarded-For": "2001:db8:1:2::\(attempt + 1)"])
                #expect(answer.status == 400)
            }
            let sameSlash64 = try await sandbox.http.send(
                "GET", "activate/tvekit-sandbox?code=ANY", headers: ["X-Forwarded-For": "2001:db8:1:2:ffff::1"])
            #expect(sameSlash64.status == 429)
            let otherViewer = try await sandbox.http.send(
                "GET", "activate/tvekit-sandbox?code=ANY", headers: ["X-Forwarded-For": "198.51.100.7"])
            #expect(otherViewer.status == 400)
        }
        #expect(ClientAddress.key("2001:db8:1:2::1") == ClientAddress.key("2001:0db8:0001:0002:ffff::9"))
        #expect(ClientAddress.key("192.0.2.1") == "192.0.2.1")
    }

    @Test("deviceInfoOnEveryV1Endpoint: an oversized device_info is refused on authorize as on regcode")
    func deviceInfoOnEveryV1Endpoint() async throws {
        try await withSandbox { sandbox in
            let answer = try await sandbox.api(
                "api/v1/authorize", [("resource", "news"), ("device_info", String(repeating: "A", count: 5000))])
            #expect(answer.status == 400)
            #expect(try await sandbox.api("api/v1/checkauthn", [("device_info", "e30=")]).status == 403)
        }
    }

    @Test("fieldFloodOnTheAssertionConsumer: a form of more than 256 fields to the SAML assertion consumer is refused before it is decoded")
    func fieldFloodOnTheAssertionConsumer() async throws {
        try await withSandbox { sandbox in
            let flood = try await sandbox.http.send(
                "POST", "sp/saml/SAMLAssertionConsumer", form: [("RelayState", "r")] + Array(repeating: ("a", "b"), count: 300))
            #expect(flood.status == 400)
            #expect(flood.text.contains("more than 256 fields"))
            // Within the limit, the form is read: this relay state is unknown.
            let form = try await sandbox.http.send(
                "POST", "sp/saml/SAMLAssertionConsumer", form: [("RelayState", "r")] + Array(repeating: ("a", "b"), count: 255))
            #expect(form.status == 400)
            #expect(form.text.contains("unknown or has expired"))
        }
    }

    @Test("unlistedMethod: TRACE or DELETE on a route's path is answered 405 with Allow, in v1 and v2; a path that is no route stays 404")
    func unlistedMethod() async throws {
        try await withSandbox { sandbox in
            let port = try #require(sandbox.http.base.port)
            func raw(_ target: String) async throws -> (status: String, allow: String?) {
                let connection = try RawConnection(port: port)
                connection.send("\(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let answer = await connection.untilClosed(seconds: 20) ?? ""
                let lines = answer.components(separatedBy: "\r\n")
                let allow = lines.first { $0.lowercased().hasPrefix("allow:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                return (String(lines.first?.dropFirst(9).prefix(3) ?? ""), allow)
            }
            #expect(try await raw("TRACE /api/v2/tvekit-sandbox/configuration") == ("405", "GET"))
            #expect(try await raw("DELETE /api/v2/tvekit-sandbox/sessions") == ("405", "POST"))
            #expect(try await raw("TRACE /api/v1/checkauthn") == ("405", "GET"))
            #expect(try await raw("POST /api/v1/logout") == ("405", "DELETE, GET"))
            #expect(try await raw("PUT /reggie/v1/tvekit-sandbox/regcode/ABC123") == ("405", "DELETE, GET"))
            #expect(try await raw("TRACE /api/v2/tvekit-sandbox/no-such-route") == ("404", nil))
            #expect(try await raw("GET /no/such/route") == ("404", nil))
            // A handler's own 404 stays one.
            let unknownCode = try await sandbox.http.send(
                "GET", "reggie/v1/tvekit-sandbox/regcode/NOSUCH", headers: ["Authorization": sandbox.bearer])
            #expect(unknownCode.status == 404)
            // v2 answers in the enhanced shape, with the security headers of every answer.
            let enhanced = try await sandbox.http.send("DELETE", "api/v2/tvekit-sandbox/configuration")
            #expect(enhanced.status == 405)
            #expect(enhanced.json["code"] as? String == "method_not_allowed")
            #expect(enhanced.header("X-Content-Type-Options") == "nosniff")
        }
    }

    @Test(
        "tempPassUnderAnotherSpelling: a TempPass used up under one form of the device identifier, or of the promotional identity, is used up under the others"
    )
    func tempPassUnderAnotherSpelling() async throws {
        try await withSandbox { sandbox in
            // One identifier's bytes (FB EF BE FF) in standard Base64, unpadded, Base64URL, and Base64URL unpadded.
            let spellings = ["++++/w==", "++++/w", "----_w==", "----_w"]
            func start(_ fingerprint: String, mvpd: String = "SandboxTempPass", identity: String? = nil) async throws -> HTTPResult {
                var headers = V2Device(sandbox).headers
                headers["AP-Device-Identifier"] = "fingerprint " + fingerprint
                if let identity { headers["AP-TempPass-Identity"] = identity }
                return try await sandbox.http.send(
                    "POST", "api/v2/tvekit-sandbox/sessions",
                    form: [("mvpd", mvpd), ("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")], headers: headers)
            }
            #expect(try await start(spellings[0]).status == 200)
            sandbox.clock.advance(seconds: 3601)
            for spelling in spellings {
                let again = try await start(spelling)
                #expect(again.status == 403, "\(spelling)")
                #expect(again.json["code"] as? String == "temporary_access_duration_limit_exceeded", "\(spelling)")
            }
            // One alphabet or the other, not both.
            #expect(try await start("++--/w==").json["code"] as? String == "invalid_header_device_identifier")

            // Promotional TempPass: the same email in another case, width or white space is the same viewer.
            func identity(_ email: String) -> String { PassAPIv2.TempPassIdentity(values: ["email": email]).header }
            #expect(try await start(spellings[0], mvpd: "SandboxPromoPass", identity: identity("Viewer@Example.com")).status == 200)
            sandbox.clock.advance(seconds: 601)
            for email in ["viewer@example.com", "  VIEWER@example.com\t", "\u{FF56}iewer@example.com"] {
                let again = try await start(spellings[2], mvpd: "SandboxPromoPass", identity: identity(email))
                #expect(again.status == 403, "\(email)")
                #expect(again.json["code"] as? String == "temporary_access_duration_limit_exceeded", "\(email)")
            }
            #expect(try await start(spellings[0], mvpd: "SandboxPromoPass", identity: identity("other@example.com")).status == 200)
        }
    }
}
