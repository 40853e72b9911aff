import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox

/// The DCR access token under REST API v2 (refreshed on expiry and after a 401, credentials registered again when the
/// service provider forgot them), and every Enhanced Error code through `checkAuthorization`.
@Suite("AccessEnabler over REST API v2: the access token and the Enhanced Error codes")
struct V2AccessTokenAndErrorTests {
    @Test("the access token is refreshed when it expires (6 h) on the device's clock: one registration, two token requests")
    func refreshOnExpiry() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            provider.clock.advance(seconds: 21_601)
            _ = try await core.authorize(resource: "news")
            #expect(transport.sent("/o/client/register").count == 1)
            #expect(transport.sent("/o/client/token").count == 2)
            #expect(transport.sent("/decisions/authorize/").count == 1)  // no 401 on the way
        }
    }

    @Test("a 401 (the device's clock disagrees) gets a new access token once and the call goes through")
    func refreshOn401() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let deviceClock = TestClock(provider.clock.nowMilliseconds)
            let core = provider.sandbox.accessEnabler {
                $0.api = .v2
                $0.transport = transport
                $0.clock = deviceClock
            }
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            provider.clock.advance(seconds: 21_601)
            _ = try await core.authorize(resource: "news")
            #expect(transport.sent("/o/client/token").count == 2)
            #expect(transport.sent("/decisions/authorize/").count == 2)  // the 401, then the retry
        }
    }

    @Test(
        "the registration and the access token are kept in the token store: a second launch registers nothing and asks for no token",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func accessTokenIsKeptAcrossLaunches(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let store = InMemoryTokenStore()
            let transport = ScriptedTransport()
            _ = try await provider.enabler(store: store, transport: transport, api: api)
                .setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            _ = try await provider.enabler(store: store, transport: transport, api: api)
                .setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(transport.sent("/o/client/register").count == 1)
            #expect(transport.sent("/o/client/token").count == 1)
        }
    }

    @Test("credentials the service provider no longer knows (its token answer is 401): the client registers again, once, and goes on")
    func forgottenCredentials() async throws {
        try await withLocalProvider { provider in
            let store = InMemoryTokenStore()
            let first = provider.v2Enabler(store: store)
            _ = try await first.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            let transport = ScriptedTransport()
            transport.on(
                "POST", "/o/client/token", .status(401, body: #"{"error":"invalid_client","error_description":"unknown client"}"#),
                times: 1)
            // The access token kept in the store has expired: the relaunch asks for a new one.
            provider.clock.advance(seconds: 21_601)
            let relaunched = provider.v2Enabler(store: store, transport: transport)
            #expect(try await relaunched.setRequestor("tvekit-sandbox", serviceProviders: [provider.url]).count == 4)
            #expect(transport.sent("/o/client/register").count == 1)
            #expect(transport.sent("/o/client/token").count == 2)
        }
    }

    @Test(
        "each Enhanced Error code, at the top level and in a decision, gives the mapped code",
        arguments: EnhancedErrorMappingTests.adobeCodes)
    func enhancedErrorCode(_ code: String) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .authenticated = try await core.selectProvider("SandboxTempPass") else { Issue.record("no TempPass"); return }
            let expected = EnhancedErrorMapping.entry(for: code).error
            let information = #"{"status":403,"code":"\#(code)","message":"denied","details":"the MVPD's words"}"#
            let answers: [ScriptedTransport.Answer] = [
                .status(403, body: information),
                .status(
                    200,
                    body: #"{"decisions":[{"resource":"news","serviceProvider":"tvekit-sandbox","mvpd":"SandboxTempPass","#
                        + #""authorized":false,"source":"mvpd","error":\#(information)}]}"#),
            ]
            for answer in answers {
                transport.clearRules()
                transport.on("POST", "/decisions/authorize/", answer, times: 1)
                do {
                    _ = try await core.authorize(resource: "news")
                    Issue.record("\(code): authorized")
                } catch let error as AccessEnablerError {
                    #expect(error.code == expected, "\(code)")
                    let translated = DelegateTranslator(platform: .iOS).authorization(
                        "news",
                        .failed(
                            error, authentication: AuthenticationToken(requestor: "r", mvpd: "m", userID: "u", expires: 0), cached: false))
                    let seedsCode = expected == .userNotAuthenticated ? "USER_NOT_AUTHENTICATED_ERROR" : "USER_NOT_AUTHORIZED_ERROR"
                    #expect(
                        translated.contains { if case .tokenRequestFailed("news", seedsCode, _) = $0 { true } else { false } }, "\(code)")
                    let status = EnhancedErrorMapping.entry(for: code).status
                    #expect(error.enhancedCode == code && error.advancedStatus == status, "\(code)")
                    if let status {
                        #expect(
                            translated.first == .status(AdvancedStatus(id: status, level: .error, message: error.message, details: code)),
                            "\(code)")
                    }
                }
                // A code that means the profile is gone ends the authentication; sign in again for the next answer.
                if (try? await core.checkAuthentication()) == nil {
                    _ = try await core.selectProvider("SandboxTempPass")
                }
            }
        }
    }
}
