import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox

/// Seed rows over REST API v2 that were partial (``AdobeServiceDouble``): forceAuthn, data v2 has no place for, logout pages,
/// the profile types and `tokenSource`, the tracking GUID.
@Suite("REST API v2 seed by seed against a stand-in for Adobe's service")
struct V2AdobeSeedTests {
    static func enabler(_ setup: V2AdobeServiceTests.Setup, _ recorder: Recorder, platform: EntitlementPlatform = .iOS) -> AccessEnabler {
        let enabler = makeEnabler(setup.core(platform: platform), recorder)
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        return enabler
    }

    @Test("forceAuthn with the MVPD the device holds: the old profile is ended and the user logs in afresh (a login page)")
    func forceAuthnGivesAFreshLogin() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn()
        let recorder = Recorder()
        let enabler = Self.enabler(setup, recorder)
        enabler.getAuthentication(forceAuthn: true)
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        await enabler.drain()
        guard case .navigate(let page, _)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
        #expect(page.path.hasPrefix("/api/v2/authenticate/REF30/"))
        #expect(setup.double.sent("/logout/Cablevision").count == 1)
        // Without forceAuthn, the profile the device holds is the answer at once.
        setup.double.logIn()
        recorder.reset()
        enabler.getAuthentication()
        await enabler.drain()
        #expect(recorder.flow.last == .authenticationStatus(1, ""))
    }

    @Test("data v2 has no place for are named once (keys, not values) and never become a later TempPass's identity")
    func unsentDataAreNamedOnceAndNeverReused() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn()
        let recorder = Recorder()
        let enabler = Self.enabler(setup, recorder)
        enabler.setOptions(.init(applicationProfile: "profile-secret-value"))
        enabler.checkAuthorization("REF30", withData: ["channel": "value-one"])
        enabler.checkAuthorization("REF30", withData: ["channel": "value-two"])
        await enabler.drain()
        let statuses = recorder.flow.compactMap { event -> String? in
            if case .status("DATA_NOT_SENT", let message) = event { message } else { nil }
        }
        #expect(statuses.count == 2)
        #expect(statuses.contains { $0.contains("applicationProfile") })
        #expect(statuses.contains { $0.contains("checkAuthorization:withData:") && $0.contains("channel") })
        #expect(!statuses.joined().contains("value-") && !statuses.joined().contains("profile-secret-value"))
        let sent = setup.double.requests
        #expect(
            !sent.contains {
                ($0.url.query ?? "").contains("value-") || String(decoding: $0.body ?? Data(), as: UTF8.self).contains("value-")
            })
        #expect(!sent.contains { $0.headers.keys.contains { $0.caseInsensitiveCompare("AP-TempPass-Identity") == .orderedSame } })
        // No secret where it does not belong: the software statement goes to registration only, the client secret to
        // the token request only, and nothing carries the device ID in clear.
        let deviceID = try await enabler.core.deviceID()
        let secret = try #require(setup.double.clientSecrets.first)
        for request in sent {
            let text =
                request.url.absoluteString + " " + request.headers.values.joined(separator: " ") + " "
                + String(decoding: request.body ?? Data(), as: UTF8.self)
            #expect(request.url.path == "/o/client/register" || !text.contains("software-statement"), "\(request.url.path)")
            #expect(request.url.path == "/o/client/token" || !text.contains(secret), "\(request.url.path)")
            #expect(!text.contains(deviceID), "\(request.url.path)")
        }
    }

    @Test("logout: Adobe's page is opened on iOS; a partner logout reports VSA203")
    func logoutOpensAdobesPage() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn()
        let recorder = Recorder()
        let enabler = Self.enabler(setup, recorder)
        enabler.logout()
        await enabler.drain()
        guard case .navigate(let page, _)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
        #expect(page.host == "logout.cablevision.test")

        setup.double.logIn(type: "appleSSO", issuer: "Apple")
        recorder.reset()
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.logout()
        await enabler.drain()
        #expect(recorder.flow.contains { if case .status("VSA203", _) = $0 { true } else { false } })
    }

    @Test(
        "every profile type is an authentication; tokenSource names a single sign-on's or degraded access's issuer",
        arguments: [
            ("regular", "Cablevision", nil), ("degraded", "Adobe", "Adobe"), ("appleSSO", "Apple", "Apple"),
            ("platformSSO", "Roku", "Roku"), ("serviceTokenSSO", "Adobe", "Adobe"), ("temporary", "Cablevision", nil),
        ] as [(String, String, String?)]
    )
    func profileTypesAndTokenSource(_ type: String, _ issuer: String, _ source: String?) async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn(type: type, issuer: issuer)
        if type == "degraded" { setup.double.setDegraded(true) }
        let core = setup.core()
        try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        #expect(try await core.checkAuthentication().mvpd == AdobeServiceDouble.mvpd)
        #expect(try await core.metadata(.userMetadata(key: "tokenSource")).value == source.map(JSONValue.string))
        #expect(!(try await core.authorize(resource: "REF30")).isEmpty)
    }

    @Test("degraded access while the MVPD is down: a session answered authorize, a degraded profile, a decision of source degradation")
    func degradedAccessWithoutAProfile() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.setDegraded(true)
        let recorder = Recorder()
        let enabler = Self.enabler(setup, recorder)
        await enabler.drain()
        recorder.reset()
        enabler.getAuthentication()
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        enabler.checkAuthorization("REF30")
        enabler.getMetadata(.userMetadata(key: "tokenSource"))
        await enabler.drain()
        let flow = recorder.flow
        #expect(flow.contains(.authenticationStatus(1, "")))
        #expect(flow.contains { if case .token(_, "REF30") = $0 { true } else { false } })
        #expect(flow.last == .metadata(.string("Adobe"), encrypted: false, key: .userMeta))
    }

    @Test("logout clears every token: a second profile the device holds (a TempPass) ends too, so no later setRequestor adopts it")
    func logoutEndsEveryProfile() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn()
        setup.double.logIn(AdobeServiceDouble.tempPass, type: "temporary", issuer: "Adobe")
        let core = setup.core()
        try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        let outcome = try await core.logout()
        #expect(outcome.serverError == nil)
        #expect(setup.double.sent("/logout/TempPass_REF30").count == 1)
        try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        await #expect(throws: AccessEnablerError.self) { try await core.checkAuthentication() }
    }

    @Test("a failed checkPreauthorizedResources or getMetadata says why on status before its empty answer")
    func failuresAreToldApartFromEmptyAnswers() async throws {
        let setup = try V2AdobeServiceTests.setup()
        setup.double.logIn()
        let recorder = Recorder()
        let enabler = Self.enabler(setup, recorder)
        await enabler.drain()
        setup.double.throttle("/decisions/preauthorize", count: 10)
        setup.double.throttle("/profiles/Cablevision", count: 10)
        recorder.reset()
        enabler.checkPreauthorizedResources(["REF30"], cache: false)
        enabler.getMetadata(.userMetadata(key: "zip"))
        await enabler.drain()
        let flow = recorder.flow
        #expect(flow.count == 4)
        guard case .status("CFG429", _) = flow[0], case .status("CFG429", _) = flow[2] else { Issue.record("\(flow)"); return }
        #expect(flow[1] == .preauthorized([]))
        #expect(flow[3] == .metadata(nil, encrypted: false, key: .userMeta))
    }

    @Test("setOptions: the visitor ID goes as AP-Visitor-Identifier and the app's device information as given, on every v2 call")
    func optionsReachEveryCall() async throws {
        let setup = try V2AdobeServiceTests.setup()
        let info = Data(#"{"primaryHardwareType":"SetTopBox","model":"AppleTV","osName":"tvOS"}"#.utf8).base64EncodedString()
        let recorder = Recorder()
        let enabler = makeEnabler(setup.core(), recorder)
        enabler.setOptions(.init(visitorID: "visitor-7", deviceInfo: info))
        enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        enabler.getAuthentication(withData: ["email": "viewer@example.test"])
        enabler.setSelectedProvider(AdobeServiceDouble.mvpd)
        await enabler.drain()
        let calls = setup.double.sent("/api/v2/")
        #expect(!calls.isEmpty)
        for call in calls {
            #expect(call.headers["AP-Visitor-Identifier"] == "visitor-7", "\(call.url.path)")
            #expect(call.headers["X-Device-Info"].map { $0 == info } ?? true, "\(call.url.path)")
        }
        #expect(setup.double.sent("/sessions").first?.headers["X-Device-Info"] == info)
        // The login's data have no place in v2 for an MVPD that is not a TempPass: named once, keys only.
        let notes = recorder.flow.compactMap { if case .status("DATA_NOT_SENT", let message) = $0 { message } else { nil } }
        #expect(notes.count == 1 && notes[0].contains("email") && !notes[0].contains("viewer@example.test"))
        // getAuthorization:withData: too (once for it and checkAuthorization:withData:).
        recorder.reset()
        enabler.getAuthorization("REF30", withData: ["package": "gold"])
        enabler.checkAuthorization("REF30", withData: ["package": "gold"])
        await enabler.drain()
        let authorizationNotes = recorder.flow.compactMap { if case .status("DATA_NOT_SENT", let message) = $0 { message } else { nil } }
        #expect(authorizationNotes.count == 1 && authorizationNotes[0].contains("getAuthorization:withData:"))
    }

    @Test("the tracking GUID of an unknown user ID is empty, never the MD5 of nothing")
    func trackingGUIDOfAnUnknownUserIsEmpty() {
        #expect(DelegateTranslator.hashedGUID("") == "")
        #expect(DelegateTranslator.hashedGUID("u-2a5b").count == 32)
    }
}
