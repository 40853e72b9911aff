import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox
import TVETokens

/// REST API v2 as Adobe's service runs it (``AdobeServiceDouble``): throttling, expired access tokens, string session
/// times, unknown fields, item-level denials, the access token kept across launches, and no failure of setRequestor
/// dropped.
@Suite("REST API v2 against a stand-in for Adobe's service")
struct V2AdobeServiceTests {
    struct Setup {
        let double: AdobeServiceDouble
        let clock: TestClock
        let sleeper: SleepRecorder
        let store: InMemoryTokenStore
        func core(platform: EntitlementPlatform = .iOS, redirectURL: String = "https://adobe.com") -> AsyncAccessEnabler {
            AsyncAccessEnabler(
                softwareStatement: "software-statement",
                configuration: .init(
                    transport: double, tokenStore: store, clock: clock, platform: platform, redirectURL: redirectURL,
                    sleep: sleeper.sleep))
        }
    }

    static func setup() throws -> Setup {
        let clock = TestClock()
        let key = try #require(SharedKeys.sandbox).mediaTokenKey
        return Setup(
            double: AdobeServiceDouble(mediaTokenKey: key, clock: clock), clock: clock, sleeper: SleepRecorder(),
            store: InMemoryTokenStore())
    }

    @Test("setRequestor whose first GET profiles answers 429 with Retry-After: 1 waits a second, asks again and keeps the login")
    func throttledProfilesAtSetRequestorAreWaitedOut() async throws {
        let setup = try Self.setup()
        setup.double.logIn()
        setup.double.throttle("/profiles", count: 1, retryAfter: "1")
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.checkAuthentication()
        await enabler.drain()
        #expect(recorder.flow == [.requestorComplete(1), .authenticationStatus(1, "")])
        #expect(setup.sleeper.recorded == [.seconds(1)])
        #expect(setup.double.sent("/profiles").count == 2)
        #expect(setup.double.sent("/sessions").isEmpty)
    }

    @Test("429 past the retries during setRequestor: status CFG429 and setRequestorComplete(0); the stored profile stays")
    func throttlingPastTheRetriesIsReportedAndKeepsTheProfile() async throws {
        let setup = try Self.setup()
        setup.double.logIn()
        let first = setup.core()
        try await first.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        #expect(try await first.checkAuthentication().mvpd == AdobeServiceDouble.mvpd)

        setup.double.throttle("/profiles", count: 10)
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.checkAuthentication()
        await enabler.drain()
        let flow = recorder.flow
        guard case .status("CFG429", let message)? = flow.first else { Issue.record("\(flow)"); return }
        #expect(message.contains("profiles"))
        #expect(Array(flow.dropFirst()) == [.requestorComplete(0), .authenticationStatus(1, "")])
        // No Retry-After: 1 s, then doubling.
        #expect(setup.sleeper.recorded == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("a 429 on every kind of call is survived: token, configuration, sessions, profiles/code, decisions, logout")
    func throttlingAnywhereInTheFlowIsSurvived() async throws {
        let setup = try Self.setup()
        for path in ["/o/client/token", "/configuration", "/sessions", "/profiles/code/", "/decisions/authorize", "/logout/"] {
            setup.double.throttle(path, count: 1, retryAfter: "2")
        }
        let core = setup.core(platform: .tvOS)
        try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        guard case .registrationCode(let code) = try await core.selectProvider(AdobeServiceDouble.mvpd) else {
            Issue.record("no registration code")
            return
        }
        setup.double.useCode(code)
        #expect(try await core.waitForSecondScreen().mvpd == AdobeServiceDouble.mvpd)
        #expect(!(try await core.authorize(resource: "REF30")).isEmpty)
        let outcome = try await core.logout()
        #expect(outcome.serverError == nil)
        #expect(setup.sleeper.recorded.filter { $0 == .seconds(2) }.count == 6)
    }

    @Test("an expired access token (401 invalid_access_token) gets one new token and the call is sent again")
    func expiredAccessTokenIsRefreshedOnce() async throws {
        let setup = try Self.setup()
        setup.double.logIn()
        let core = setup.core()
        try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        setup.double.expireAccessTokens()
        _ = try await core.authorize(resource: "REF30")
        #expect(setup.double.sent("/o/client/token").count == 2)
        #expect(setup.double.sent("/o/client/register").count == 1)
    }

    @Test("the access token is kept in the token store: a second launch registers nothing and asks for no token")
    func accessTokenIsKeptAcrossLaunches() async throws {
        let setup = try Self.setup()
        try await setup.core().setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        try await setup.core().setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        #expect(setup.double.sent("/o/client/register").count == 1)
        #expect(setup.double.sent("/o/client/token").count == 1)
        // The stored registration shows neither its secret nor its token.
        let stored = try #require(setup.store.load(requestor: AdobeServiceDouble.requestor)?.clientRegistrations?.values.first)
        #expect(stored.accessToken != nil)
        #expect(!stored.description.contains(stored.clientSecret) && !stored.description.contains(stored.accessToken ?? "-"))
        // Once it has expired, a launch asks for a new one.
        setup.clock.advance(seconds: 86_400)
        try await setup.core().setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        #expect(setup.double.sent("/o/client/token").count == 2)
    }

    @Test("Adobe's habits read as such: string session times, unknown fields, the MVPD's words on a denied item")
    func adobeShapesAreRead() async throws {
        let setup = try Self.setup()
        setup.double.deny(["Live"])
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.getAuthentication()
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        await enabler.drain()
        guard case .navigate(let page, _)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
        #expect(page.absoluteString.hasPrefix("https://sp.auth.adobe.test/api/v2/authenticate/REF30/"))
        setup.double.logIn()
        enabler.handleExternalURL(try #require(URL(string: "https://adobe.com")))
        enabler.checkAuthorization("Live")
        await enabler.drain()
        #expect(
            recorder.flow.last
                == .failed(
                    "Live", code: "USER_NOT_AUTHORIZED_ERROR",
                    description: #"Your subscription package does not include the "Live" channel"#))
    }

    @Test("every AccessEnabler call against Adobe's stand-in gives the callbacks the seeds name; the media token verifies")
    func everyCallAgainstAdobe() async throws {
        let setup = try Self.setup()
        setup.double.deny(["Live"])
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setOptions(.init(visitorID: "visitor-1"))
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.checkAuthentication()
        enabler.getAuthentication()
        enabler.getSelectedProvider()
        await enabler.drain()
        #expect(
            recorder.flow == [
                .requestorComplete(1), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                .providerDialog(["Cablevision", "TempPass_REF30"]), .selected(nil),
            ])

        // getAuthorization before a login: the login first, then the token.
        recorder.reset()
        enabler.getAuthorization("REF30")
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        await enabler.drain()
        let page = try #require(recorder.lastNavigation)
        setup.double.useCode(page.lastPathComponent)
        enabler.handleExternalURL(try #require(URL(string: "https://adobe.com")))
        enabler.getSelectedProvider()
        await enabler.drain()
        let flow = recorder.flow
        #expect(flow.contains(.authenticationStatus(1, "")))
        #expect(flow.last == .selected("Cablevision"))
        guard case .token(let token, "REF30")? = flow.dropLast().last else { Issue.record("\(flow)"); return }
        let verifier = try MediaTokenVerifier(
            trustedKeys: [try #require(SharedKeys.sandbox).mediaTokenKey.publicKey], requestorID: "REF30", clock: setup.clock)
        #expect(verifier.verify(token, resourceID: "REF30").result == .validToken)

        recorder.reset()
        enabler.checkAuthorization("REF30")
        enabler.checkPreauthorizedResources(["REF30", "Live"], cache: false)
        enabler.getMetadata(.authenticationTTL)
        enabler.getMetadata(.authorizationTTL(resource: "REF30"))
        enabler.getMetadata(.deviceID)
        enabler.getMetadata(.userMetadata(key: "zip"))
        await enabler.drain()
        let answers = recorder.flow
        #expect(answers.count == 6)
        guard case .token(_, "REF30") = answers[0] else { Issue.record("\(answers)"); return }
        #expect(answers[1] == .preauthorized(["REF30"]))
        #expect(answers[5] == .metadata(.array([.string("10001")]), encrypted: false, key: .userMeta))

        // logout: Adobe's page, then back to the app; the deprecated getAuthenticationToken completes the next login.
        recorder.reset()
        enabler.logout()
        await enabler.drain()
        #expect(recorder.lastNavigation?.host == "logout.cablevision.test")
        enabler.handleExternalURL(try #require(URL(string: "https://adobe.com")))
        enabler.getAuthentication()
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        await enabler.drain()
        setup.double.useCode(try #require(recorder.lastNavigation).lastPathComponent)
        enabler.getAuthenticationToken()
        await enabler.drain()
        #expect(recorder.flow.contains(.authenticationStatus(0, "")))
        #expect(recorder.flow.last == .authenticationStatus(1, ""))
        #expect(setup.double.requests.allSatisfy { $0.url.path.hasPrefix("/o/") || $0.headers["AP-Visitor-Identifier"] == "visitor-1" })
    }

    @Test("a wrong requestor is named as such: Adobe's invalid_requestor becomes CFG400 with its words, setRequestorComplete(0)")
    func wrongRequestorIsNamed() async throws {
        let setup = try Self.setup()
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor("REF31", serviceProviders: [AdobeServiceDouble.baseURL])
        await enabler.drain()
        #expect(
            recorder.flow == [
                .status("CFG400", "configuration failed (invalid_requestor: The requestor parameter is missing or invalid)"),
                .requestorComplete(0),
            ])
    }

    @Test("a deprecated identity with api = .v2 fails at once with R400 naming the fix, and sends nothing")
    func deprecatedIdentityOnV2NamesTheFix() async throws {
        let setup = try Self.setup()
        let recorder = Recorder()
        let core = AsyncAccessEnabler(configuration: .init(transport: setup.double, clock: setup.clock, sleep: setup.sleeper.sleep))
        let enabler = makeEnabler(core, recorder)
        enabler.setRequestor(
            AdobeServiceDouble.requestor, signedRequestorID: "c2lnbmF0dXJl", serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.setRequestor(
            AdobeServiceDouble.requestor, signedRequestorID: "c2lnbmF0dXJl", serviceProviders: [AdobeServiceDouble.baseURL], secret: "s",
            publicKey: "p")
        await enabler.drain()
        let flow = recorder.flow
        #expect(flow.count == 4)
        for (status, complete) in [(flow[0], flow[1]), (flow[2], flow[3])] {
            guard case .status("R400", let message) = status else { Issue.record("\(flow)"); return }
            #expect(message.contains("init(softwareStatement:)") && message.contains("api = .v1"))
            #expect(complete == .requestorComplete(0))
        }
        #expect(setup.double.requests.isEmpty)
    }
}
