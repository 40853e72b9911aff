import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import TVEPassAPI
import TVEPassAPIv2
import TVESandbox
import TVETokens
@testable import TVEServiceProvider

/// REST API v2 as Adobe's service runs it, not only as its file says: what real clients send is accepted, what protects
/// someone stays refused, and the strict switch holds callers to the file.
@Suite("REST API v2: Adobe's leniency and its limits")
struct V2LeniencyTests {
    static let tvOSUserAgent = "AppleCoreMedia/1.0.0.20K71 (Apple TV; U; CPU OS 16_1 like Mac OS X; en_us) AppleTV/16.1"

    /// Registers with the sandbox's software statement, the body and headers given, and answers the status.
    func register(_ sandbox: ProviderHarness, headers: [String: String]) async throws -> HTTPResult {
        let statement = try SoftwareStatement.issue(
            subject: "real-client", issuedAt: sandbox.clock.nowMilliseconds / 1000, signingKey: sandbox.keys.softwareStatementKey)
        var request = URLRequest(url: sandbox.http.base.appendingPathComponent("o/client/register"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["software_statement": statement.compact])
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await sandbox.http.session.data(for: request)
        return HTTPResult(status: (response as? HTTPURLResponse)?.statusCode ?? 0, headers: [:], body: data)
    }

    @Test("realClientRegistration: registration without X-Device-Info succeeds (as public clients register); the strict switch requires it")
    func registrationWithoutDeviceInfo() async throws {
        try await withSandbox { sandbox in
            let answer = try await register(sandbox, headers: ["Content-Type": "application/json", "User-Agent": Self.tvOSUserAgent])
            #expect(answer.status == 201)
            #expect(answer.json["client_id"] is String)
        }
        var strict = ServiceProviderConfiguration.sandbox
        strict.strict = true
        try await withSandbox(strict) { sandbox in
            let bare = try await register(sandbox, headers: ["Content-Type": "application/json"])
            #expect(bare.status == 400 && bare.json["error"] as? String == "invalid_request")
            let partial = try await register(sandbox, headers: ["Content-Type": "application/json", "X-Device-Info": "e30="])
            #expect(partial.status == 400)
            let full = try await register(
                sandbox, headers: ["Content-Type": "application/json", "X-Device-Info": V2Device.deviceInfo.header])
            #expect(full.status == 201)
        }
    }

    @Test(
        "realClientTokenRequest: the token request's credentials in the query string (Adobe's dcrApi.json), the form, or both when they agree"
    )
    func tokenCredentialsInQuery() async throws {
        try await withSandbox { sandbox in
            let client = try await register(sandbox, headers: ["Content-Type": "application/json"]).json
            let id = try #require(client["client_id"] as? String)
            let secret = try #require(client["client_secret"] as? String)
            let grant = [("client_id", id), ("client_secret", secret), ("grant_type", "client_credentials")]
            let query = try await sandbox.http.send("POST", "o/client/token", query: grant)
            #expect(query.status == 201 && query.json["access_token"] is String)
            let form = try await sandbox.http.send("POST", "o/client/token", form: grant)
            #expect(form.status == 201)
            let both = try await sandbox.http.send("POST", "o/client/token", query: grant, form: grant)
            #expect(both.status == 201)
            // A name twice with different values is refused: no reader may see another secret than the one checked.
            let conflicting = try await sandbox.http.send(
                "POST", "o/client/token", query: grant, form: [("client_secret", "other")])
            #expect(conflicting.status == 400 && conflicting.json["error"] as? String == "invalid_request")
            // The token from the query works on the v2 routes.
            let bearer = "Bearer " + (try #require(query.json["access_token"] as? String))
            #expect(try await V2Device(sandbox, bearer: bearer).raw("GET", "tvekit-sandbox/profiles").status == 200)
        }
    }

    @Test("clientSecretGuessing: wrong client secrets from one address stop at 20, then even the right one waits")
    func clientSecretGuessing() async throws {
        try await withSandbox { sandbox in
            let client = try await register(sandbox, headers: ["Content-Type": "application/json"]).json
            let id = try #require(client["client_id"] as? String)
            let secret = try #require(client["client_secret"] as? String)
            for attempt in 0..<20 {
                let wrong = try await sandbox.http.send(
                    "POST", "o/client/token",
                    form: [("client_id", id), ("client_secret", "guess-\(attempt)"), ("grant_type", "client_credentials")])
                #expect(wrong.status == 401)
            }
            let right = try await sandbox.http.send(
                "POST", "o/client/token", form: [("client_id", id), ("client_secret", secret), ("grant_type", "client_credentials")])
            #expect(right.status == 429 && right.json["error"] as? String == "temporarily_unavailable")
            sandbox.clock.advance(seconds: 901)
            let later = try await sandbox.http.send(
                "POST", "o/client/token", form: [("client_id", id), ("client_secret", secret), ("grant_type", "client_credentials")])
            #expect(later.status == 201)
        }
    }

    @Test(
        "realClientDeviceInfo: a partial, unreadable or missing X-Device-Info is completed from the request, as Adobe's service does",
        arguments: [
            (
                "Adobe's tvOS sample (no vendor, no connectionPort)",
                Optional(#"{"primaryHardwareType":"SetTopBox","model":"Apple TV","osName":"tvOS","osVendor":"Apple"}"#), "Apple TV"
            ),
            ("partial", #"{"model":"Living room"}"#, "Living room"), ("not JSON", "not json at all", "Apple TV"),
            ("absent", nil, "Apple TV"),
        ])
    func realClientDeviceInfo(name: String, json: String?, model: String) async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["X-Device-Info"] = json.map { json in json.hasPrefix("{") ? Data(json.utf8).base64EncodedString() : json }
            headers["User-Agent"] = Self.tvOSUserAgent
            let created = try await tv.raw(
                "POST", "tvekit-sandbox/sessions",
                form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")],
                headers: headers)
            #expect(created.status == 200, "\(name)")
            let code = try #require(created.json["code"] as? String, "\(name)")
            let status = try await tv.raw("GET", "tvekit-sandbox/sessions/\(code)", headers: headers)
            let device = status.json["device"] as? [String: Any]
            #expect(device?["model"] as? String == model, "\(name)")
            #expect((device?["operatingSystem"] as? [String: Any])?["name"] as? String == "tvOS", "\(name)")
        }
    }

    @Test(
        "tokenCrossingServiceProviders: an access token is refused on another service provider's routes with 401 invalid_access_token_service_provider"
    )
    func tokenCrossingServiceProviders() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(.init(id: "tvekit-other", mvpds: ["SandboxCable"]))
        try await withSandbox(configuration) { sandbox in
            let tv = V2Device(sandbox)
            // With no application listed anywhere, the harness's app is bound to the first service provider it calls.
            #expect(try await tv.raw("GET", "tvekit-sandbox/profiles").status == 200)
            let crossing = try await tv.raw("GET", "tvekit-other/profiles")
            #expect(crossing.status == 401 && crossing.json["code"] as? String == "invalid_access_token_service_provider")
            #expect(crossing.json["action"] as? String == "application-registration")
            // Over REST API v1 too.
            let v1 = try await sandbox.http.send(
                "GET", "api/v1/checkauthn", query: [("requestor", "tvekit-other"), ("deviceId", "d")],
                headers: ["Authorization": sandbox.bearer])
            #expect(v1.status == 401)
        }
        // Once the configuration lists applications, a listed one is good on its service providers from its first call,
        // and an unlisted one nowhere.
        configuration.requestors.append(.init(id: "tvekit-family-a", mvpds: ["SandboxCable"], applications: ["family-app"]))
        configuration.requestors.append(.init(id: "tvekit-family-b", mvpds: ["SandboxCable"], applications: ["family-app"]))
        try await withSandbox(configuration) { sandbox in
            let family = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock, subject: "family-app")
            let member = V2Device(sandbox, bearer: family)
            #expect(try await member.raw("GET", "tvekit-family-b/profiles").status == 200)
            #expect(try await member.raw("GET", "tvekit-family-a/profiles").status == 200)
            #expect(
                try await member.raw("GET", "tvekit-sandbox/profiles").json["code"] as? String == "invalid_access_token_service_provider")
            let unlisted = V2Device(sandbox)
            #expect(
                try await unlisted.raw("GET", "tvekit-sandbox/profiles").json["code"] as? String == "invalid_access_token_service_provider")
        }
    }

    @Test(
        "adobeSampleRedirect: Adobe's sample session (domainName=adobe.com, redirectUrl=https://adobe.com) and logout succeed on the sandbox"
    )
    func adobeSampleRedirect() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let session = try await tv.raw(
                "POST", "tvekit-sandbox/sessions",
                form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")])
            #expect(session.status == 200 && session.json["actionName"] as? String == "authenticate")
            let page = try await tv.raw(
                "POST", "tvekit-sandbox/sessions",
                form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://www.adobe.com/watch?x=1")])
            #expect(page.status == 200)
            let logout = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxCable?redirectUrl=https%3A%2F%2Fadobe.com")
            #expect(logout.status == 200)
        }
    }

    @Test(
        "redirectOutsideTheDomains: script schemes, userinfo tricks, look-alike hosts and other domains stay invalid_parameter_redirect_url",
        arguments: [
            "javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "https://adobe.com@evil.example",
            "https://adobe.com:443@evil.example/",
            "https://evil.example#@adobe.com", "https://evil.example/?x=.adobe.com", "https://adobe.com.evil.example",
            "https://evil-adobe.com",
            "https://notadobe.com", "http://adobe.com", "https://adobe.com\\@evil.example", "https://%61dobe.com", "adobepass://evil.app",
            "//adobe.com", "https:adobe.com", "https:/adobe.com", "https://adobe.com /x", "ftp://adobe.com", "https://", "https://[::1]/",
            "https://127.0.0.1/", "https://adobe.com\u{0}.evil.example", "vbscript:msgbox(1)",
        ])
    func redirectOutsideTheDomains(url: String) async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let session = try await tv.raw(
                "POST", "tvekit-sandbox/sessions", form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", url)])
            #expect(session.status == 400 && session.json["code"] as? String == "invalid_parameter_redirect_url", "\(url)")
            let logout = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxCable?redirectUrl=" + FormCodec.percentEncode(url))
            #expect(logout.status == 400 && logout.json["code"] as? String == "invalid_parameter_redirect_url", "\(url)")
        }
    }

    @Test("redirectRule: the rule, case by case (registered URLs exactly; https pages on the domains and their subdomains)")
    func redirectRule() {
        let requestor = ServiceProviderConfiguration.Requestor(id: "r", mvpds: [], domains: ["adobe.com", "localhost"])
        for url in [
            "adobepass://ios.app", "adobepass://android.app", "https://adobe.com", "https://ADOBE.com/", "https://www.adobe.com/a?b=c#d",
            "https://adobe.com.:8443/x", "http://localhost:8080/done", "https://localhost/",
        ] {
            #expect(requestor.allowsRedirect(to: url), "\(url)")
        }
        for url in ["adobepass://ios.app/extra", "http://adobe.com", "https://adobe.co", "https://xadobe.com", "HTTPS://evil.example"] {
            #expect(!requestor.allowsRedirect(to: url), "\(url)")
        }
        // A requestor with no domains allows its registered URLs only.
        #expect(!ServiceProviderConfiguration.Requestor(id: "r", mvpds: []).allowsRedirect(to: "https://adobe.com"))
    }

    @Test("sessionWithoutBody: Adobe's file marks the sessions body optional, so no body is a session with every parameter missing")
    func sessionWithoutBody() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let answer = try await tv.raw("POST", "tvekit-sandbox/sessions")
            #expect(answer.status == 200)
            #expect(answer.json["actionName"] as? String == "resume")
            #expect(Set(answer.json["missingParameters"] as? [String] ?? []) == ["mvpd", "domainName", "redirectUrl"])
            // The answer names the session to resume, as Adobe's samples show.
            #expect((answer.json["url"] as? String)?.hasPrefix("/api/v2/tvekit-sandbox/sessions/") == true)
        }
    }
}
