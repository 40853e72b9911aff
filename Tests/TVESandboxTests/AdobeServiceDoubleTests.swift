import Foundation
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVETokens
import Testing

/// ``AdobeServiceDouble``: the article's code, and the double over HTTP on loopback.
@Suite("AdobeServiceDouble: Adobe's service as apps meet it")
struct AdobeServiceDoubleTests {
    @Test("the article's code: a throttled GET profiles at setRequestor is waited out; the access token is one")
    func articleCode() async throws {
        let mediaTokenKey = try #require(SharedKeys.sandbox).mediaTokenKey
        let statement = "eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl"
        let double = AdobeServiceDouble(mediaTokenKey: mediaTokenKey)
        double.throttle("/profiles", count: 1, retryAfter: "1")  // the next GET profiles answers 429
        let configuration = AsyncAccessEnabler.Configuration(transport: double)
        let enabler = AsyncAccessEnabler(softwareStatement: statement, configuration: configuration)
        try await enabler.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [AdobeServiceDouble.baseURL])
        #expect(double.sent("/profiles").count == 2)
        #expect(double.sent("/o/client/token").count == 1)
    }

    @Test("over HTTP on loopback: the second screen's page signs in and returns to the redirect URL; tokens verify")
    func overHTTP() async throws {
        let key = try #require(SharedKeys.sandbox).mediaTokenKey
        let double = AdobeServiceDouble(mediaTokenKey: key)
        try await double.run { url in
            let core = AsyncAccessEnabler(
                softwareStatement: "statement",
                configuration: .init(
                    transport: URLSessionTransport(timeout: 30), platform: .tvOS, redirectURL: "/activate/REF30/done",
                    sleep: { _ in }))
            try await core.setRequestor(AdobeServiceDouble.requestor, serviceProviders: [url])
            guard case .registrationCode = try await core.selectProvider(AdobeServiceDouble.mvpd) else {
                Issue.record("no registration code")
                return
            }
            let page = try #require(await core.loginPage())
            guard case .page(200, let text) = try await SandboxBrowser().navigate(to: page), text.contains("You are signed in") else {
                Issue.record("the page did not end on the done page")
                return
            }
            #expect(try await core.waitForSecondScreen().mvpd == AdobeServiceDouble.mvpd)
            let token = try await core.authorize(resource: "REF30")
            let verifier = try MediaTokenVerifier(trustedKeys: [key.publicKey], requestorID: AdobeServiceDouble.requestor)
            #expect(verifier.verify(token, resourceID: "REF30").result == .validToken)
        }
    }
}
