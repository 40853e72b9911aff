import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVEMetadata
import TVEPassAPIv2
import TVESandbox
import TVEServiceProvider
import TVETokens

/// The seeds' cookbook over REST API v2: each row of the AccessEnabler-to-v2 mapping as the callbacks an app gets.
@Suite("AccessEnabler over REST API v2: the cookbook's flows")
struct V2CookbookTests {
    static func header(_ request: EntitlementHTTPRequest, _ name: String) -> String? {
        request.headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    @Test("iOS: setRequestor → configuration, navigateToUrl(session URL) → profiles/{mvpd}, preauthorize, authorize, metadata, logout page")
    func iOSCookbook() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let recorder = Recorder()
            let core = provider.v2Enabler(transport: transport)
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.checkAuthentication()
            enabler.getAuthentication()
            await enabler.drain()
            #expect(
                recorder.flow == [
                    .requestorComplete(1), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                    .providerDialog(["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"]),
                ])
            let mvpds = await core.mvpds
            #expect(mvpds.map(\.isTempPass) == [false, false, true, true])
            // No index past the list's end: a loaded machine's timeout must fail the test, not crash the run.
            let boarded = mvpds.dropFirst().first
            #expect(
                boarded?.enablePlatformServices == true && boarded?.boardingStatus == "SUPPORTED"
                    && boarded?.displayInPlatformPicker == true)

            recorder.reset()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            #expect(page.path.hasPrefix("/api/v2/authenticate/tvekit-sandbox/"))
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
            else {
                Issue.record("the login did not return to the app"); return
            }
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
            #expect(!transport.sent("/api/v2/tvekit-sandbox/profiles/SandboxCable", method: "GET").isEmpty)
            #expect(try await core.checkAuthentication().userID == "viewer")  // the profile's encrypted userID, decrypted

            recorder.reset()
            enabler.checkPreauthorizedResources(["news", "mature-show", "premium-sports"])
            enabler.checkAuthorization("news")
            enabler.checkAuthorization("mature-show")
            enabler.getMetadata(.userMetadata(key: "zip"))
            enabler.getMetadata(.authenticationTTL)
            enabler.getMetadata(.authorizationTTL(resource: "news"))
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count == 7, case .token(let token, "news") = flow[1] else { Issue.record("\(flow)"); return }
            #expect(flow[0] == .preauthorized(["news"]))
            let verifier = try MediaTokenVerifier(
                trustedKeys: [provider.keys.mediaTokenKey.publicKey], requestorID: "tvekit-sandbox", clock: provider.clock)
            #expect(verifier.verify(token, resourceID: "news").result == .validToken)
            // The Enhanced Error's advanced status (Z100), then the seeds' failure with the MVPD's words.
            #expect(flow[2] == .status("Z100", "Your parental controls block this program."))
            #expect(
                flow[3]
                    == .failed("mature-show", code: "USER_NOT_AUTHORIZED_ERROR", description: "Your parental controls block this program."))
            #expect(flow[4] == .metadata(.array([.string("12345")]), encrypted: false, key: .userMeta))
            let authentication = try await core.checkAuthentication()
            #expect(flow[5] == .metadata(.string(String(authentication.expires)), encrypted: false, key: .authentication))
            guard case .metadata(.string(let authorizationTTL)?, false, .authorization) = flow[6], let ttl = Int64(authorizationTTL) else {
                Issue.record("\(flow[6])"); return
            }
            #expect(ttl > provider.clock.nowMilliseconds && ttl <= authentication.expires)

            recorder.reset()
            enabler.logout()
            await enabler.drain()
            let logoutPage = try #require(recorder.lastNavigation)
            #expect(logoutPage.path == "/idp/SandboxCable/logout")
            guard case .redirect(let after) = try await SandboxBrowser().navigate(to: logoutPage) else {
                Issue.record("no redirect"); return
            }
            enabler.handleExternalURL(after)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, ""))

            // Every call was REST API v2 (or DCR), each v2 call with the bearer token and the device headers.
            let requests = transport.requests.withLock { $0 }
            #expect(requests.allSatisfy { $0.url.path.hasPrefix("/api/v2/") || $0.url.path.hasPrefix("/o/client/") })
            let deviceID = try await core.deviceID()
            let expected = try V2DeviceHeaders(deviceID: deviceID, deviceInfo: nil, platform: .iOS)
            for request in requests where request.url.path.hasPrefix("/api/v2/") {
                #expect(Self.header(request, "Authorization")?.hasPrefix("Bearer ") == true)
                if !request.url.path.hasSuffix("/configuration") {
                    #expect(Self.header(request, "AP-Device-Identifier") == expected.deviceIdentifier)
                    #expect(Self.header(request, "X-Device-Info") == expected.deviceInfo)
                }
            }
            #expect(expected.deviceIdentifier.hasPrefix("fingerprint ") && !expected.deviceIdentifier.contains(deviceID))
        }
    }

    @Test("checkAuthentication and the TTLs read the stored profile: no request")
    func checkAuthenticationSendsNothing() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            let before = transport.requests.withLock { $0.count }
            _ = try await core.checkAuthentication()
            _ = try await core.metadata(.authenticationTTL)
            _ = try await core.metadata(.deviceID)
            #expect(transport.requests.withLock { $0.count } == before)
        }
    }

    @Test(
        "tvOS: REGCODE with the session's code, profiles/code/{code} polled every 3 s (the 50 ms asked for, clamped), status 1; logout is complete"
    )
    func tvOSSecondScreen() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let sleeper = SleepRecorder()
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(platform: .tvOS, transport: transport, sleeper: sleeper), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            #expect(code.count == 7)
            // Polling runs until the phone has been used.
            #expect(await eventually { transport.sent("/profiles/code/\(code)").count >= 2 })
            let page = try #require(URL(string: provider.url.absoluteString + "/api/v2/authenticate/tvekit-sandbox/\(code)"))
            _ = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
            #expect(await recorder.wait { $0 == .authenticationStatus(1, "") } != nil)
            #expect(!sleeper.recorded.isEmpty && sleeper.recorded.allSatisfy { $0 == .seconds(3) })

            recorder.reset()
            enabler.logout()
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "")])
            let logout = try #require(transport.sent("/logout/SandboxCable").last)
            #expect(logout.url.query == nil)  // tvOS has no page to come back to
        }
    }

    @Test("tvOS: the wait ends at the session's notAfter (30 min of polling, then GENERIC_AUTHENTICATION_ERROR)")
    func pollingStopsAtNotAfter() async throws {
        let clock = TestClock()
        try await withLocalProvider(clock: clock) { provider in
            let sleeper = ClockSleeper(clock)
            let core = provider.sandbox.accessEnabler {
                $0.api = .v2
                $0.platform = .tvOS
                $0.pollingTimeout = .seconds(36_000)
                $0.sleep = sleeper.sleep
            }
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .registrationCode = try await core.selectProvider("SandboxCable") else { Issue.record("no code"); return }
            await #expect {
                _ = try await core.waitForSecondScreen()
            } throws: { ($0 as? AccessEnablerError)?.message == "the registration code was not used in time" }
            let waited = sleeper.recorded.reduce(Duration.zero, +)
            #expect(waited >= .seconds(1797) && waited <= .seconds(1803))
        }
    }

    @Test("tvOS: cancelling the wait stops the polling at once")
    func pollingStopsOnCancellation() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(platform: .tvOS, transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .registrationCode(let code) = try await core.selectProvider("SandboxCable") else { Issue.record("no code"); return }
            let wait = Task { try await core.waitForSecondScreen() }
            #expect(await eventually { transport.sent("/profiles/code/\(code)").count >= 2 })
            wait.cancel()
            await #expect(throws: AccessEnablerError.self) { _ = try await wait.value }
            let polls = transport.sent("/profiles/code/\(code)").count
            try await Task.sleep(for: .milliseconds(100))
            #expect(transport.sent("/profiles/code/\(code)").count == polls)
        }
    }

    @Test("a session answered authorize (the device already holds a profile with the MVPD): authenticated with no login page")
    func authorizeActionNeedsNoPage() async throws {
        try await withLocalProvider { provider in
            let core = provider.v2Enabler()
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            let token = try await logIn(core)
            guard case .authenticated(let again) = try await core.selectProvider("SandboxCable") else {
                Issue.record("a login page for an MVPD the device is authenticated with"); return
            }
            #expect(again.mvpd == token.mvpd && again.userID == token.userID)
        }
    }

    @Test(
        "a relaunch keeps the DCR client (no new registration) and the profile; a login finished after the app stopped waiting is found on setRequestor"
    )
    func relaunch() async throws {
        try await withLocalProvider { provider in
            let store = InMemoryTokenStore()
            let first = ScriptedTransport()
            let tv = provider.v2Enabler(platform: .tvOS, store: store, transport: first)
            _ = try await tv.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            guard case .registrationCode(let code) = try await tv.selectProvider("SandboxCable") else { Issue.record("no code"); return }
            #expect(first.sent("/o/client/register").count == 1)
            // The app is closed before the viewer uses the code on a phone.
            let page = try #require(URL(string: provider.url.absoluteString + "/api/v2/authenticate/tvekit-sandbox/\(code)"))
            _ = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")

            let second = ScriptedTransport()
            let relaunched = provider.v2Enabler(platform: .tvOS, store: store, transport: second)
            _ = try await relaunched.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(second.sent("/o/client/register").isEmpty)
            #expect(try await relaunched.checkAuthentication().mvpd == "SandboxCable")
            #expect(try await relaunched.selectedProvider()?.id == "SandboxCable")
        }
    }

    @Test("user metadata without the app's key: the enc value is handed over with encrypted: true; plain values as they are")
    func userMetadataWithoutKey() async throws {
        try await withLocalProvider { provider in
            let core = provider.sandbox.accessEnabler {
                $0.api = .v2
                $0.metadataDecryptor = nil
            }
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            let zip = try await core.metadata(.userMetadata(key: "zip"))
            #expect(zip.encrypted)
            guard case .string(let ciphertext)? = zip.value else { Issue.record("\(zip)"); return }
            #expect(try MetadataDecryptorFactory.make(provider.keys.metadataKey).decryptValue(ciphertext) == .array([.string("12345")]))
            #expect(try await core.metadata(.userMetadata(key: "maxRating")).encrypted == false)
            #expect(try await core.metadata(.userMetadata(key: "no-such-key")).value == nil)
        }
    }

    @Test("checkPreauthorizedResources: split into calls of at most 5 resources; with cache, stored authorizations answer at once")
    func preauthorizeInCallsOfFive() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            let resources = ["news", "sports", "movies", "premium-sports", "kids", "drama", "mature-show"]
            let allowed = try await core.preauthorize(resources, cache: false)
            #expect(allowed == ["news", "sports", "movies", "kids", "drama"])
            let calls = transport.sent("/decisions/preauthorize/SandboxCable", method: "POST")
            #expect(calls.count == 2)
            _ = try await core.authorize(resource: "news")
            #expect(try await core.preauthorize(["news"], cache: true) == ["news"])
            #expect(transport.sent("/decisions/preauthorize/").count == 2)
        }
    }
}
