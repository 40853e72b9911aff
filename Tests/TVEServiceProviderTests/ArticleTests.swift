import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESandbox
import TVEServiceProvider
import TVETokens
import Testing

/// The code of the article "Running the local service provider" (`Docs.docc/RunningTheServiceProvider.md`), each
/// block run against a provider on loopback.
@Suite("Article: running the local service provider")
struct ArticleTests {
    /// The configuration of the article's first block, for the tests that reuse the shared sandbox keys.
    static let configuration = ServiceProviderConfiguration(
        requestors: [.init(id: "my-channel", mvpds: ["MyCable"], resources: ["news", "sports"])],
        mvpds: [.init(id: "MyCable", displayName: "My Cable", users: [.init(username: "alice", password: "alice-password")])])

    @Test("a provider of your own configuration runs on a free loopback port and serves the second-screen page")
    func runInCode() async throws {
        let mediaTokenKey = try RSAPrivateKey(keySizeInBits: 2048)
        let appKey = try RSAPrivateKey(keySizeInBits: 2048)
        let keys = ServiceProviderKeys(
            mediaTokenSigningKey: mediaTokenKey, identityProviderSigningKey: try RSAPrivateKey(keySizeInBits: 2048),
            softwareStatementKeys: [appKey.publicKey])
        let configuration = ServiceProviderConfiguration(
            requestors: [.init(id: "my-channel", mvpds: ["MyCable"], resources: ["news", "sports"])],
            mvpds: [.init(id: "MyCable", displayName: "My Cable", users: [.init(username: "alice", password: "alice-password")])])
        let provider = try ServiceProvider(configuration: configuration, keys: keys)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        let status = try await LocalServer.run(router) { baseURL in
            // http://127.0.0.1:<a free port> while the closure runs; the server stops gracefully when it returns.
            let page = URLRequest(url: baseURL.appendingPathComponent("activate/my-channel"))
            let (_, response) = try await URLSession.shared.data(for: page)
            return (response as? HTTPURLResponse)?.statusCode
        }
        #expect(status == 200)
        #expect(configuration == Self.configuration)
        #expect(configuration.problems.isEmpty)
    }

    @Test("the REST API v2 walk: register, token, session, the second-screen page, the profile, a media token that verifies")
    func restAPIv2Walk() async throws {
        let sandboxKeys = try #require(SharedKeys.sandbox)
        let appKey = sandboxKeys.softwareStatementKey
        let mediaTokenKey = sandboxKeys.mediaTokenKey
        let provider = try ServiceProvider(configuration: Self.configuration, keys: sandboxKeys.serviceProviderKeys)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try await LocalServer.run(router) { baseURL in
            // 1. Register the app with its software statement (RS256, signed by a key of softwareStatementKeys).
            let statement = try SoftwareStatement.issue(
                subject: "my-app", issuedAt: Int64(Date().timeIntervalSince1970), signingKey: appKey)
            var register = URLRequest(url: baseURL.appendingPathComponent("o/client/register"))
            register.httpMethod = "POST"
            register.setValue("application/json", forHTTPHeaderField: "Content-Type")
            register.setValue("e30=", forHTTPHeaderField: "X-Device-Info")
            register.httpBody = PassAPI.encode(PassAPI.ClientRegistrationRequest(softwareStatement: statement.compact))
            let (registered, _) = try await URLSession.shared.data(for: register)
            let client = try JSONDecoder().decode(PassAPI.ClientRegistrationResponse.self, from: registered)

            // 2. Exchange the client credentials for a bearer access token (it lives 6 hours).
            var grant = URLRequest(url: baseURL.appendingPathComponent("o/client/token"))
            grant.httpMethod = "POST"
            grant.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            let fields = PassAPI.AccessTokenRequest(clientID: client.clientID, clientSecret: client.clientSecret).formFields
            grant.httpBody = Data(FormCodec.encode(fields).utf8)
            let (granted, _) = try await URLSession.shared.data(for: grant)
            let accessToken = try JSONDecoder().decode(PassAPI.AccessTokenResponse.self, from: granted).accessToken
            #expect(client.grantTypes == ["client_credentials"])
            #expect(!accessToken.isEmpty)

            // 3. Every call of the device: the bearer token and the two device headers.
            let deviceInfo = PassAPIv2.DeviceInfo(values: [
                "primaryHardwareType": "SetTopBox", "model": "Box", "vendor": "Me", "osName": "Linux", "osVendor": "Debian",
                "connectionPort": "443",
            ])
            let deviceHeaders = [
                "Authorization": "Bearer \(accessToken)",
                "AP-Device-Identifier": PassAPIv2.DeviceIdentifier(bytes: Array("living-room-tv".utf8)).header,
                "X-Device-Info": deviceInfo.header,
            ]
            var create = URLRequest(url: baseURL.appendingPathComponent("api/v2/my-channel/sessions"))
            create.httpMethod = "POST"
            create.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            for (name, value) in deviceHeaders { create.setValue(value, forHTTPHeaderField: name) }
            create.httpBody = Data(FormCodec.encode([("domainName", "tvekit.test"), ("redirectUrl", "/activate/my-channel/done")]).utf8)
            let (created, _) = try await URLSession.shared.data(for: create)
            let session = try JSONSerialization.jsonObject(with: created) as? [String: Any] ?? [:]
            let code = session["code"] as? String ?? ""  // actionName "resume", missingParameters ["mvpd"]
            #expect(session["actionName"] as? String == "resume")
            #expect(session["missingParameters"] as? [String] == ["mvpd"])
            #expect(code.count == 7)

            // The gate: no device headers, then no bearer token.
            let browser = HTTPClient(base: baseURL)
            let headerless = try await browser.send(
                "POST", "api/v2/my-channel/sessions", form: [("domainName", "tvekit.test")],
                headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(headerless.status == 400)
            #expect(headerless.json["code"] as? String == "invalid_header_device_identifier")
            let anonymous = try await browser.send("GET", "api/v2/my-channel/configuration")
            #expect(anonymous.status == 401)
            #expect(anonymous.json["code"] as? String == "invalid_access_token_client_application")

            // The second screen: the code, the provider (the session names none), the MVPD's login, back to /done.
            let codePage = try await browser.send("GET", "activate/my-channel")
            #expect(codePage.status == 200)
            #expect(codePage.text.contains("Activate your TV"))
            let picker = try #require(try await browser.send("GET", "activate/my-channel", query: [("code", code)]).form)
            #expect(picker.action == "/activate/my-channel")
            var page = try await browser.send("POST", picker.action, form: picker.fields + [("mvpd", "MyCable")])
            #expect(page.status == 302)
            #expect(page.header("Location") == "/api/v2/authenticate/my-channel/\(code)")
            var signedIn = false
            for _ in 0..<8 {
                if page.status == 302, let location = page.header("Location"), location.hasPrefix("/") {
                    page = try await browser.send("GET", location)
                } else if page.status == 200, let form = page.form {
                    let credentials: [(String, String)] = signedIn ? [] : [("username", "alice"), ("password", "alice-password")]
                    signedIn = true
                    page = try await browser.send("POST", form.action, form: form.fields + credentials)
                } else {
                    break
                }
            }
            #expect(page.status == 200)
            #expect(page.text.contains("You are signed in"))

            // 4. After the sign-in on the second screen: the profile for the code, then a decision with the media token.
            var poll = URLRequest(url: baseURL.appendingPathComponent("api/v2/my-channel/profiles/code/\(code)"))
            poll.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            let (polled, _) = try await URLSession.shared.data(for: poll)
            let profiles = (try JSONSerialization.jsonObject(with: polled) as? [String: Any])?["profiles"] as? [String: Any]
            var authorize = URLRequest(url: baseURL.appendingPathComponent("api/v2/my-channel/decisions/authorize/MyCable"))
            authorize.httpMethod = "POST"
            authorize.setValue("application/json", forHTTPHeaderField: "Content-Type")
            for (name, value) in deviceHeaders { authorize.setValue(value, forHTTPHeaderField: name) }
            authorize.httpBody = Data(#"{"resources": ["news"]}"#.utf8)
            let (decided, _) = try await URLSession.shared.data(for: authorize)
            let answer = try JSONSerialization.jsonObject(with: decided) as? [String: Any]
            let decision = (answer?["decisions"] as? [[String: Any]])?.first
            let mediaToken = (decision?["token"] as? [String: Any])?["serializedToken"] as? String ?? ""
            let verifier = try MediaTokenVerifier(trustedKeys: [mediaTokenKey.publicKey], requestorID: "my-channel")
            let outcome = verifier.verify(mediaToken, resourceID: "news")  // VALID_TOKEN
            #expect(profiles?["MyCable"] != nil)
            #expect(decision?["authorized"] as? Bool == true)
            #expect(outcome.result == .validToken)
            #expect(outcome.token?.mvpdId == "MyCable")
        }
    }

    @Test("the throttle: a bucket of 10 per address that refills at 1 a second")
    func tokenBucket() {
        let throttle = TokenBucketThrottle(clock: FixedMediaTokenClock(milliseconds: 1_767_225_600_000))
        let answers = (1...11).map { _ in throttle.allow("192.0.2.7") }
        // ten true (the burst), then false: the bucket refills at 1 request a second, and this clock stands still
        #expect(answers == Array(repeating: true, count: 10) + [false])
        #expect(throttle.allow("192.0.2.8"))
    }

    @Test("throttling on: the eleventh request at once is a 429 with Retry-After; wrong codes stop at the attempt limit")
    func throttlingAndAttemptLimits() async throws {
        let keys = try #require(SharedKeys.sandbox).serviceProviderKeys
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.throttling = true  // 1 request a second per address, bursts of 10, then 429 with Retry-After: 1
        let provider = try ServiceProvider(
            configuration: configuration, keys: keys, clock: FixedMediaTokenClock(milliseconds: 1_767_225_600_000),
            attemptLimits: AttemptLimiter.Limits(code: 5, password: 3))
        #expect(provider.attempts.limits.code == 5)
        #expect(provider.attempts.limits.passwordAddress == 20)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try await LocalServer.run(router) { baseURL in
            let http = HTTPClient(base: baseURL)
            var statuses: [Int] = []
            for _ in 0..<10 { statuses.append(try await http.send("GET", "activate/tvekit-sandbox").status) }
            #expect(statuses == Array(repeating: 200, count: 10))
            let throttled = try await http.send("GET", "activate/tvekit-sandbox")
            #expect(throttled.status == 429)
            #expect(throttled.header("Retry-After") == "1")
        }

        // Without the throttle, the attempt limit alone: five unknown codes from one address, then 429.
        let unthrottled = try ServiceProvider(
            configuration: .sandbox, keys: keys, attemptLimits: AttemptLimiter.Limits(code: 5, password: 3))
        let open = Router(context: ServerRequestContext.self)
        unthrottled.addRoutes(to: open)
        try await LocalServer.run(open) { baseURL in
            let http = HTTPClient(base: baseURL)
            var statuses: [Int] = []
            for _ in 0..<6 { statuses.append(try await http.send("GET", "activate/tvekit-sandbox", query: [("code", "NOPE123")]).status) }
            #expect(statuses == Array(repeating: 400, count: 5) + [429])
        }
    }
}
