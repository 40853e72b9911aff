import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEPassAPIv2
import TVESandbox

/// What a REST API v2 service provider's answer must not be able to do to the app, and the state a failure must not
/// leave behind.
@Suite("AccessEnabler over REST API v2: hardening")
struct V2HardeningTests {
    static func session(notAfter: String = "\"1\"", url: String = "/api/v2/authenticate/tvekit-sandbox/ABC1234") -> String {
        """
        {"actionName":"authenticate","actionType":"interactive","code":"ABC1234","notAfter":\(notAfter),"reasonType":"none",\
        "serviceProvider":"tvekit-sandbox","sessionId":"s-1","url":"\(url)"}
        """
    }

    @Test(
        "overflowingNotAfterDoesNotCrash: a session's notAfter at Int64's ends ends the wait or leaves the polling limit in charge",
        arguments: ["\"-9223372036854775808\"", "9223372036854775807", "\"9223372036854775807\"", "-1"])
    func overflowingNotAfterDoesNotCrash(notAfter: String) async throws {
        let clock = TestClock()
        try await withLocalProvider(clock: clock) { provider in
            let transport = ScriptedTransport()
            transport.on("POST", "/tvekit-sandbox/sessions", .status(200, body: Self.session(notAfter: notAfter)))
            let sleeper = ClockSleeper(clock)
            let core = provider.sandbox.accessEnabler {
                $0.api = .v2
                $0.platform = .tvOS
                $0.transport = transport
                $0.pollingTimeout = .seconds(60)
                $0.sleep = sleeper.sleep
            }
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .registrationCode("ABC1234") = try await core.selectProvider("SandboxCable") else { Issue.record("no code"); return }
            await #expect(throws: AccessEnablerError.self) { _ = try await core.waitForSecondScreen() }
            #expect(sleeper.recorded.reduce(.zero, +) <= .seconds(63))
        }
    }

    @Test(
        "loginPageOnAnotherOriginIsRefused: a session URL must be the service provider's own; a logout page elsewhere only over https",
        arguments: [
            ("https://evil.example/login", false), ("http://evil.example/login", false), ("https:evil.example", false),
            ("http://user@127.0.0.1/login", false), ("ftp://127.0.0.1/x", false), ("/api/v2/authenticate/tvekit-sandbox/ABC1234", true),
            ("/authenticate/tvekit-sandbox/ABC1234", true), ("/idp/x\\\\evil", false),
        ])
    func loginPageOnAnotherOrigin(url: String, accepted: Bool) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on("POST", "/tvekit-sandbox/sessions", .status(200, body: Self.session(url: url)))
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            do {
                guard case .navigate(let page, _) = try await core.selectProvider("SandboxCable") else { Issue.record("no page"); return }
                #expect(accepted, "\(url) was opened as \(page)")
                #expect(page.host == provider.url.host && page.port == provider.url.port && page.path.hasPrefix("/api/v2/authenticate/"))
            } catch let error as AccessEnablerError {
                #expect(!accepted, "\(url): \(error)")
                #expect(error.code == .genericAuthentication)
            }
        }
    }

    @Test("a logout page elsewhere is opened over https only; an http one elsewhere is dropped (the logout still ends)")
    func logoutPageElsewhere() async throws {
        for (url, opened) in [("https://mvpd.example/logout", true), ("http://mvpd.example/logout", false)] {
            try await withLocalProvider { provider in
                let transport = ScriptedTransport()
                let core = provider.v2Enabler(transport: transport)
                _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
                try await logIn(core)
                transport.on(
                    "GET", "/logout/SandboxCable",
                    .status(
                        200,
                        body:
                            #"{"logouts":{"SandboxCable":{"actionName":"logout","actionType":"interactive","mvpd":"SandboxCable","url":"\#(url)"}}}"#
                    ))
                let outcome = try await core.logout()
                #expect((outcome.page?.absoluteString == url) == opened, "\(url)")
                await #expect(throws: AccessEnablerError.self) { try await core.checkAuthentication() }
            }
        }
    }

    @Test(
        "impossibleStatusDoesNotCrash: an app transport answering HTTP 1000 or 42 gives status 0, not HTTPTypes' trap",
        arguments: [1000, 42, -1])
    func impossibleStatus(status: Int) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on("GET", "/configuration", .status(status, body: "{}"))
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await enabler.drain()
            #expect(recorder.flow.last == .requestorComplete(0))
        }
    }

    @Test("deniedAuthorizationIsNotCached: after a denial the stored authorization no longer answers a cached preauthorization")
    func deniedAuthorizationIsNotCached() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            _ = try await core.authorize(resource: "news")
            #expect(try await core.metadata(.authorizationTTL(resource: "news")).value != nil)
            let denial = #"{"status":403,"code":"authorization_denied_by_parental_controls","message":"no","details":"Blocked tonight."}"#
            transport.on(
                "POST", "/decisions/authorize/",
                .status(
                    200,
                    body:
                        #"{"decisions":[{"resource":"news","serviceProvider":"tvekit-sandbox","mvpd":"SandboxCable","authorized":false,"source":"mvpd","error":\#(denial)}]}"#
                ),
                times: 1)
            await #expect { _ = try await core.authorize(resource: "news") } throws: {
                ($0 as? AccessEnablerError)?.message == "Blocked tonight."
            }
            #expect(try await core.metadata(.authorizationTTL(resource: "news")).value == nil)
        }
    }

    @Test(
        "offlineLogoutIsNotUndone: a logout the service provider was not told of is sent at the next setRequestor, and the old profile is not adopted"
    )
    func offlineLogoutIsNotUndone() async throws {
        try await withLocalProvider { provider in
            let store = InMemoryTokenStore()
            let offline = ScriptedTransport()
            let core = provider.v2Enabler(platform: .tvOS, store: store, transport: offline)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logInSecondScreen(core, provider)
            offline.on("GET", "/logout/", .unreachable)
            #expect(try await core.logout().serverError != nil)

            let online = ScriptedTransport()
            let relaunched = provider.v2Enabler(platform: .tvOS, store: store, transport: online)
            _ = try await relaunched.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await relaunched.checkAuthentication() }
            #expect(online.sent("/logout/SandboxCable").count == 1)
            // The service provider no longer holds the profile either: a later launch finds nothing to adopt.
            let third = provider.v2Enabler(platform: .tvOS, store: InMemoryTokenStore())
            _ = try await third.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await #expect(throws: AccessEnablerError.self) { try await third.checkAuthentication() }
        }
    }

    @Test("promotionalTempPassAfterRelaunch: the identity is kept with the pass and sent only with the calls about its MVPD")
    func promotionalTempPassAfterRelaunch() async throws {
        try await withLocalProvider { provider in
            let store = InMemoryTokenStore()
            let first = provider.v2Enabler(store: store)
            _ = try await first.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .authenticated = try await first.selectProvider("SandboxPromoPass", data: ["email": "viewer@example.com"]) else {
                Issue.record("no pass"); return
            }
            let transport = ScriptedTransport()
            let relaunched = provider.v2Enabler(store: store, transport: transport)
            _ = try await relaunched.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            _ = try await relaunched.authorize(resource: "news")
            let decision = try #require(transport.sent("/decisions/authorize/SandboxPromoPass").last)
            let header = try #require(V2CookbookTests.header(decision, PassAPIv2.TempPassIdentity.headerName))
            #expect(try PassAPIv2.TempPassIdentity(header: header).values == ["email": "viewer@example.com"])
            #expect(
                transport.sent("/configuration").allSatisfy { V2CookbookTests.header($0, PassAPIv2.TempPassIdentity.headerName) == nil })
            _ = try await relaunched.logout()
            #expect(store.load(requestor: "tvekit-sandbox")?.tempPassIdentity == nil)
        }
    }

    @Test("an expired or unknown session code ends the wait at once; a 5xx or a garbled answer is asked again")
    func fatalPollingErrorEndsTheWait() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on(
                "GET", "/profiles/code/",
                .status(400, body: #"{"status":400,"code":"authentication_session_expired","message":"the session ended"}"#))
            let core = provider.v2Enabler(platform: .tvOS, transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .registrationCode = try await core.selectProvider("SandboxCable") else { Issue.record("no code"); return }
            await #expect { _ = try await core.waitForSecondScreen() } throws: {
                ($0 as? AccessEnablerError)?.enhancedCode == "authentication_session_expired"
            }
            #expect(transport.sent("/profiles/code/").count == 1)
        }
    }

    @Test("an MVPD stored by an earlier version (no isTempPass, no displayInPlatformPicker) still reads")
    func storedMVPDFromAnEarlierVersion() throws {
        let json = #"""
            {"id":"SandboxCable","displayName":"Sandbox Cable","enablePlatformServices":false,"requiredMetadataFields":[],
             "serviceProvider":"http://127.0.0.1:1"}
            """#
        let mvpd = try JSONDecoder().decode(MVPD.self, from: Data(json.utf8))
        #expect(mvpd.id == "SandboxCable" && !mvpd.isTempPass && mvpd.displayInPlatformPicker)
        #expect(try JSONDecoder().decode(MVPD.self, from: JSONEncoder().encode(mvpd)) == mvpd)
    }
}

/// A tvOS login: the session's code used on a "phone".
func logInSecondScreen(_ core: AsyncAccessEnabler, _ provider: LocalProvider) async throws {
    guard case .registrationCode(let code) = try await core.selectProvider("SandboxCable") else {
        throw AccessEnablerError(.genericAuthentication, "no code")
    }
    let page = try #require(URL(string: provider.url.absoluteString + "/api/v2/authenticate/tvekit-sandbox/\(code)"))
    _ = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
    _ = try await core.waitForSecondScreen()
}
