import Foundation
import Testing
import TVECrypto
import TVEPassAPIv2
import TVESandbox
import TVETokens
@testable import TVEServiceProvider

/// REST API v2 single sign-on with a platform identity (`Adobe-Subject-Token`) and with a service token
/// (`AD-Service-Token`), and degraded access, on the sandbox with the keys it makes.
@Suite("REST API v2: platform and service-token single sign-on, degraded access")
struct V2SingleSignOnTests {
    /// A method's header and the sandbox key that signs its tokens.
    static func method(_ name: String, _ keys: SandboxKeys) -> (header: String, key: RSAPrivateKey, type: String) {
        name == "platform"
            ? ("Adobe-Subject-Token", keys.platformIdentityKey, "platformSSO")
            : ("AD-Service-Token", keys.serviceTokenKey, "serviceTokenSSO")
    }

    static func token(
        _ sandbox: ProviderHarness, key: RSAPrivateKey, subject: String = "jane", audience: String = "Adobe", issuedAgo: Int64 = 0,
        lifetime: Int64 = 3600, issuer: String = SandboxKeys.identityIssuer
    ) throws -> String {
        try SingleSignOnToken.issue(
            issuer: issuer, subject: subject, audience: audience,
            issuedAt: sandbox.clock.nowMilliseconds / 1000 - issuedAgo,
            lifetime: lifetime, signingKey: key
        ).jwt.compact
    }

    /// A token whose `iat` is Int64.min and whose `exp` is an hour away: `exp - iat` overflows.
    static func extremeToken(_ key: RSAPrivateKey, _ sandbox: ProviderHarness) throws -> String {
        let now = sandbox.clock.nowMilliseconds / 1000
        let claims = #"{"aud":"Adobe","exp":\#(now + 3600),"iat":-9223372036854775808,"iss":"i","sub":"s"}"#
        let input = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8), padding: .pkcs1v15SHA256))
    }

    /// A device's headers with a single-sign-on header.
    static func headers(_ device: V2Device, _ header: String, _ token: String) -> [String: String] {
        var headers = device.headers
        headers[header] = token
        return headers
    }

    /// Logs `device` in with SandboxCable through a session that carries `headers`.
    static func login(_ device: V2Device, headers: [String: String]) async throws {
        let created = try await device.raw(
            "POST", "tvekit-sandbox/sessions",
            form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")], headers: headers)
        #expect(created.json["actionName"] as? String == "authenticate")
        let code = try #require(created.json["code"] as? String)
        let (location, _) = try await device.browserLogin(code: code)
        #expect(location == "https://adobe.com")
    }

    @Test(
        "singleSignOn: a login made with an identity is shared with every other device and app that sends it",
        arguments: ["platform", "service"])
    func sharedLogin(method name: String) async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(.init(id: "tvekit-sister", mvpds: ["SandboxCable"], domains: ["adobe.com"]))
        try await withSandbox(configuration) { sandbox in
            let method = Self.method(name, sandbox.keys)
            let phone = V2Device(sandbox, name: "phone")
            try await Self.login(phone, headers: Self.headers(phone, method.header, try Self.token(sandbox, key: method.key)))
            // Another device of the same app, with its own token for the same identity: no login.
            let tv = V2Device(sandbox, name: "tv")
            let tvHeaders = Self.headers(tv, method.header, try Self.token(sandbox, key: method.key))
            let session = try await tv.raw(
                "POST", "tvekit-sandbox/sessions",
                form: [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")],
                headers: tvHeaders)
            #expect(session.json["actionName"] as? String == "authorize")
            #expect(session.json["reasonType"] as? String == "authenticatedSSO")
            let profiles = try await tv.raw("GET", "tvekit-sandbox/profiles", headers: tvHeaders)
            let profile = (profiles.json["profiles"] as? [String: Any])?["SandboxCable"] as? [String: Any]
            #expect(profile?["type"] as? String == method.type)
            let decision = try await tv.raw(
                "POST", "tvekit-sandbox/decisions/authorize/SandboxCable", json: #"{"resources":["news"]}"#, headers: tvHeaders)
            let item = (decision.json["decisions"] as? [[String: Any]])?.first
            #expect(item?["authorized"] as? Bool == true && (item?["token"] as? [String: Any])?["serializedToken"] is String)
            // Without the header the TV holds nothing.
            #expect(((try await tv.raw("GET", "tvekit-sandbox/profiles").json["profiles"] as? [String: Any]) ?? [:]).isEmpty)
            // Another app (another requestor, its own registration) of the same identity shares it too.
            let sister = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock, subject: "sister-app")
            let sisterTV = V2Device(sandbox, name: "sister-tv", bearer: sister)
            let sisterHeaders = Self.headers(sisterTV, method.header, try Self.token(sandbox, key: method.key))
            let sisterProfiles = try await sisterTV.raw("GET", "tvekit-sister/profiles", headers: sisterHeaders)
            #expect(
                ((sisterProfiles.json["profiles"] as? [String: Any])?["SandboxCable"] as? [String: Any])?["type"] as? String == method.type)
            // A logout through single sign-on ends it for everyone.
            let logout = try await tv.raw("GET", "tvekit-sandbox/logout/SandboxCable", headers: tvHeaders)
            #expect(logout.status == 200)
            let after = try await sisterTV.raw("GET", "tvekit-sister/profiles", headers: sisterHeaders)
            #expect(((after.json["profiles"] as? [String: Any]) ?? [:]).isEmpty)
        }
    }

    @Test(
        "badSingleSignOnToken: expired, not yet valid, wrong signature, wrong audience, too long-lived, the other method's key: 400",
        arguments: ["platform", "service"])
    func badTokens(method name: String) async throws {
        try await withSandbox { sandbox in
            let method = Self.method(name, sandbox.keys)
            let other = Self.method(name == "platform" ? "service" : "platform", sandbox.keys)
            let code = name == "platform" ? "invalid_header_subject_token" : "invalid_header_service_token"
            let stranger = try RSAPrivateKey(keySizeInBits: 2048)
            let cases: [(String, String)] = [
                ("expired", try Self.token(sandbox, key: method.key, issuedAgo: 7200)),
                ("not yet valid", try Self.token(sandbox, key: method.key, issuedAgo: -600)),
                ("wrong signature", try Self.token(sandbox, key: stranger)),
                ("the other method's key", try Self.token(sandbox, key: other.key)),
                ("wrong audience", try Self.token(sandbox, key: method.key, audience: "Someone")),
                ("too long-lived", try Self.token(sandbox, key: method.key, lifetime: 7 * 86_400)),
                ("an iat at Int64's end (exp - iat would overflow)", try Self.extremeToken(method.key, sandbox)),
                (
                    "an issuer not trusted here, with a trusted key",
                    try Self.token(sandbox, key: method.key, issuer: "other-identity.example")
                ),
                ("not a JWT", "not-a-jwt"), ("alg none", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJqYW5lIn0."),
            ]
            let tv = V2Device(sandbox)
            for (what, token) in cases {
                let answer = try await tv.raw("GET", "tvekit-sandbox/profiles", headers: Self.headers(tv, method.header, token))
                #expect(answer.status == 400 && answer.json["code"] as? String == code, "\(what)")
                #expect(!(answer.json["details"] as? String ?? "").contains(token), "\(what): the token is not echoed")
            }
            // Both headers at once.
            var both = Self.headers(tv, method.header, try Self.token(sandbox, key: method.key))
            both[other.header] = try Self.token(sandbox, key: other.key)
            #expect(try await tv.raw("GET", "tvekit-sandbox/profiles", headers: both).status == 400)
        }
    }

    @Test(
        "replayedSingleSignOnToken: a token is bound to the first app registration that presents it; another one gets 400",
        arguments: ["platform", "service"])
    func replayed(method name: String) async throws {
        try await withSandbox { sandbox in
            let method = Self.method(name, sandbox.keys)
            let token = try Self.token(sandbox, key: method.key)
            let owner = V2Device(sandbox, name: "owner")
            #expect(try await owner.raw("GET", "tvekit-sandbox/profiles", headers: Self.headers(owner, method.header, token)).status == 200)
            #expect(try await owner.raw("GET", "tvekit-sandbox/profiles", headers: Self.headers(owner, method.header, token)).status == 200)
            // Once a call named the device, the token is that device's: the same app on another device is refused.
            let otherDevice = V2Device(sandbox, name: "other-device")
            let moved = try await otherDevice.raw(
                "GET", "tvekit-sandbox/profiles", headers: Self.headers(otherDevice, method.header, token))
            #expect(moved.status == 400)
            // The same token with a space or its percent-encoding around it is not a new token.
            for padded in [token + "%20", "%0A" + token] {
                let answer = try await owner.raw("GET", "tvekit-sandbox/profiles", headers: Self.headers(owner, method.header, padded))
                #expect(answer.status == 400, "padded token")
            }
            let stolen = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock)
            let thief = V2Device(sandbox, name: "thief", bearer: stolen)
            let replay = try await thief.raw("GET", "tvekit-sandbox/profiles", headers: Self.headers(thief, method.header, token))
            #expect(replay.status == 400 && (replay.json["details"] as? String ?? "").contains("replayed"))
        }
    }

    @Test(
        "degradedAccess: while an MVPD is down, sessions authorize (degraded), profiles are Adobe's and decisions come from the degradation rule"
    )
    func degradedAccess() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let form = [("mvpd", "SandboxCable"), ("domainName", "adobe.com"), ("redirectUrl", "https://adobe.com")]
            // Off: a login is needed.
            #expect(try await tv.raw("POST", "tvekit-sandbox/sessions", form: form).json["actionName"] as? String == "authenticate")
            sandbox.provider.degradedAccess.begin(mvpd: "SandboxCable")
            #expect(sandbox.provider.degradedAccess.mvpds == ["SandboxCable"])
            let session = try await tv.raw("POST", "tvekit-sandbox/sessions", form: form)
            #expect(session.json["actionName"] as? String == "authorize" && session.json["reasonType"] as? String == "degraded")
            let profile = try #require(try await tv.profiles()["SandboxCable"])
            #expect(profile._type == "degraded" && profile.issuer == "Adobe")
            // Even a resource the MVPD would deny: the MVPD is not asked.
            for resource in ["news", "premium-sports"] {
                let decision = try #require(try await tv.decisions("authorize", [resource]).first)
                #expect(decision.authorized == true && decision.source == "degradation", "\(resource)")
                #expect(decision.token?.serializedToken != nil, "\(resource)")
            }
            // Back on: the degraded profile goes; decisions need a real login again.
            sandbox.provider.degradedAccess.end(mvpd: "SandboxCable")
            #expect(try await tv.profiles().isEmpty)
            let after = try #require(try await tv.decisions("authorize", ["news"]).first)
            #expect(after.authorized == false && after.error?.code == "authenticated_profile_missing" && after.source == "mvpd")
        }
    }

    @Test("degradedAccessFromConfiguration: an MVPD configured degraded starts degraded; a real login's decisions also come from the rule")
    func degradedFromConfiguration() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds[0].degradedAccess = true
        try await withSandbox(configuration) { sandbox in
            #expect(sandbox.provider.degradedAccess.isOn(for: "SandboxCable"))
            sandbox.provider.degradedAccess.end(mvpd: "SandboxCable")
            let tv = V2Device(sandbox)
            _ = try await tv.login()
            sandbox.provider.degradedAccess.begin(mvpd: "SandboxCable")
            #expect(try await tv.profiles()["SandboxCable"]?._type == "regular")
            let decision = try #require(try await tv.decisions("authorize", ["premium-sports"]).first)
            #expect(decision.authorized == true && decision.source == "degradation")
        }
    }

    @Test("singleSignOnGroups: requestors of another single-sign-on group do not share a login made with the same identity")
    func singleSignOnGroups() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.requestors.append(
            .init(id: "tvekit-elsewhere", mvpds: ["SandboxCable"], domains: ["adobe.com"], singleSignOnGroup: "another-programmer"))
        try await withSandbox(configuration) { sandbox in
            let method = Self.method("service", sandbox.keys)
            let phone = V2Device(sandbox, name: "phone")
            try await Self.login(phone, headers: Self.headers(phone, method.header, try Self.token(sandbox, key: method.key)))
            let other = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock, subject: "elsewhere-app")
            let tv = V2Device(sandbox, name: "elsewhere-tv", bearer: other)
            let profiles = try await tv.raw(
                "GET", "tvekit-elsewhere/profiles", headers: Self.headers(tv, method.header, try Self.token(sandbox, key: method.key)))
            #expect(profiles.status == 200)
            #expect(((profiles.json["profiles"] as? [String: Any]) ?? [:]).isEmpty)
        }
    }
}
