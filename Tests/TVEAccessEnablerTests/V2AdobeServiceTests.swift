import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox

/// REST API v2 as Adobe's service runs it (``AdobeV2Double``): throttling, expired access tokens, string session
/// times, unknown fields, item-level denials, the access token kept across launches, and no failure of setRequestor
/// dropped.
@Suite("REST API v2 against a stand-in for Adobe's service")
struct V2AdobeServiceTests {
    struct Setup {
        let double: AdobeV2Double
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

    static func setup() -> Setup {
        let clock = TestClock()
        return Setup(
            double: AdobeV2Double(now: { clock.nowMilliseconds }), clock: clock, sleeper: SleepRecorder(), store: InMemoryTokenStore())
    }

    @Test("setRequestor whose first GET profiles answers 429 with Retry-After: 1 waits a second, asks again and keeps the login")
    func throttledProfilesAtSetRequestorAreWaitedOut() async throws {
        let setup = Self.setup()
        setup.double.logIn()
        setup.double.throttle("/profiles", count: 1, retryAfter: "1")
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        enabler.checkAuthentication()
        await enabler.drain()
        #expect(recorder.flow == [.requestorComplete(1), .authenticationStatus(1, "")])
        #expect(setup.sleeper.recorded == [.seconds(1)])
        #expect(setup.double.sent("/profiles").count == 2)
        #expect(setup.double.sent("/sessions").isEmpty)
    }

    @Test("429 past the retries during setRequestor: status CFG429 and setRequestorComplete(0); the stored profile stays")
    func throttlingPastTheRetriesIsReportedAndKeepsTheProfile() async throws {
        let setup = Self.setup()
        setup.double.logIn()
        let first = setup.core()
        try await first.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        #expect(try await first.checkAuthentication().mvpd == AdobeV2Double.mvpd)

        setup.double.throttle("/profiles", count: 10)
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
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
        let setup = Self.setup()
        for path in ["/o/client/token", "/configuration", "/sessions", "/profiles/code/", "/decisions/authorize", "/logout/"] {
            setup.double.throttle(path, count: 1, retryAfter: "2")
        }
        let core = setup.core(platform: .tvOS)
        try await core.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        guard case .registrationCode(let code) = try await core.selectProvider(AdobeV2Double.mvpd) else {
            Issue.record("no registration code")
            return
        }
        setup.double.useCode(code)
        #expect(try await core.waitForSecondScreen().mvpd == AdobeV2Double.mvpd)
        #expect(!(try await core.authorize(resource: "REF30")).isEmpty)
        let outcome = try await core.logout()
        #expect(outcome.serverError == nil)
        #expect(setup.sleeper.recorded.filter { $0 == .seconds(2) }.count == 6)
    }

    @Test("an expired access token (401 invalid_access_token) gets one new token and the call is sent again")
    func expiredAccessTokenIsRefreshedOnce() async throws {
        let setup = Self.setup()
        setup.double.logIn()
        let core = setup.core()
        try await core.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        setup.double.expireTokens()
        _ = try await core.authorize(resource: "REF30")
        #expect(setup.double.sent("/o/client/token").count == 2)
        #expect(setup.double.sent("/o/client/register").count == 1)
    }

    @Test("the access token is kept in the token store: a second launch registers nothing and asks for no token")
    func accessTokenIsKeptAcrossLaunches() async throws {
        let setup = Self.setup()
        try await setup.core().setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        try await setup.core().setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        #expect(setup.double.sent("/o/client/register").count == 1)
        #expect(setup.double.sent("/o/client/token").count == 1)
        // The stored registration shows neither its secret nor its token.
        let stored = try #require(setup.store.load(requestor: AdobeV2Double.requestor)?.clientRegistrations?.values.first)
        #expect(stored.accessToken != nil)
        #expect(!stored.description.contains(stored.clientSecret) && !stored.description.contains(stored.accessToken ?? "-"))
        // Once it has expired, a launch asks for a new one.
        setup.clock.advance(seconds: 86_400)
        try await setup.core().setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        #expect(setup.double.sent("/o/client/token").count == 2)
    }

    @Test("Adobe's habits read as such: string session times, unknown fields, the MVPD's words on a denied item")
    func adobeShapesAreRead() async throws {
        let setup = Self.setup()
        setup.double.state.withLock { $0.denied = ["Live"] }
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor(AdobeV2Double.requestor, serviceProviders: [AdobeV2Double.base])
        enabler.getAuthentication()
        enabler.setSelectedProvider(AdobeV2Double.mvpd)
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

    @Test("a wrong requestor is named as such: Adobe's invalid_requestor becomes CFG400 with its words, setRequestorComplete(0)")
    func wrongRequestorIsNamed() async throws {
        let setup = Self.setup()
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setRequestor("REF31", serviceProviders: [AdobeV2Double.base])
        await enabler.drain()
        #expect(
            recorder.flow == [
                .status("CFG400", "configuration failed (invalid_requestor: The requestor is not known)"), .requestorComplete(0),
            ])
    }

    @Test("a deprecated identity with api = .v2 fails at once with R400 naming the fix, and sends nothing")
    func deprecatedIdentityOnV2NamesTheFix() async throws {
        let setup = Self.setup()
        let recorder = Recorder()
        let core = AsyncAccessEnabler(configuration: .init(transport: setup.double, clock: setup.clock, sleep: setup.sleeper.sleep))
        let enabler = makeEnabler(core, recorder)
        enabler.setRequestor(AdobeV2Double.requestor, signedRequestorID: "c2lnbmF0dXJl", serviceProviders: [AdobeV2Double.base])
        enabler.setRequestor(
            AdobeV2Double.requestor, signedRequestorID: "c2lnbmF0dXJl", serviceProviders: [AdobeV2Double.base], secret: "s", publicKey: "p")
        await enabler.drain()
        let flow = recorder.flow
        #expect(flow.count == 4)
        for (status, complete) in [(flow[0], flow[1]), (flow[2], flow[3])] {
            guard case .status("R400", let message) = status else { Issue.record("\(flow)"); return }
            #expect(message.contains("init(softwareStatement:)") && message.contains("api = .v1"))
            #expect(complete == .requestorComplete(0))
        }
        #expect(setup.double.state.withLock { $0.requests }.isEmpty)
    }
}
