import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox
import TVEServiceProvider
import TVETokens

@Suite("AccessEnabler async API against the local service provider")
struct AsyncFlowTests {
    @Test("cookbook startup, authentication without SSO (iOS web view), preauthorization, authorization, metadata, logout")
    func classicFlow() async throws {
        try await withLocalProvider { provider in
            let enabler = provider.enabler()
            let mvpds = try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(mvpds.map(\.id) == ["SandboxCable", "SandboxSSO"])
            #expect(mvpds.last?.enablePlatformServices == true && mvpds.last?.boardingStatus == "SUPPORTED")
            await #expect(throws: AccessEnablerError.self) { try await enabler.checkAuthentication() }

            guard case .selectProvider(let offered) = try await enabler.startAuthentication() else {
                Issue.record("no provider dialog"); return
            }
            #expect(offered.count == 2)
            guard case .navigate(let url, let useSVC) = try await enabler.selectProvider("SandboxCable") else {
                Issue.record("no URL"); return
            }
            #expect(!useSVC)
            let outcome = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
            guard case .redirect(let redirect) = outcome else { Issue.record("the login did not redirect: \(outcome)"); return }
            #expect(redirect.absoluteString == "adobepass://ios.app")
            let token = try await enabler.handleExternalURL(redirect)
            #expect(token.mvpd == "SandboxCable" && token.userID == "viewer")
            #expect(try await enabler.checkAuthentication() == token)
            #expect(try await enabler.selectedProvider()?.id == "SandboxCable")
            if case .authenticated = try await enabler.startAuthentication() {
            } else {
                Issue.record("getAuthentication should find the token")
            }

            #expect(try await enabler.preauthorize(["news", "mature-show", "premium-sports"]) == ["news"])
            let mediaToken = try await enabler.authorize(resource: "news")
            let verifier = try MediaTokenVerifier(
                trustedKeys: [provider.keys.mediaTokenKey.publicKey], requestorID: "tvekit-sandbox", clock: provider.clock)
            #expect(verifier.verify(mediaToken, resourceID: "news").result == .validToken)
            do {
                _ = try await enabler.authorize(resource: "mature-show")
                Issue.record("mature-show was authorized")
            } catch let error as AccessEnablerError {
                #expect(error.code == .userNotAuthorized)
                #expect(error.message == "Your parental controls block this program.")
            }

            #expect(try await enabler.metadata(.userMetadata(key: "zip")).value == .array([.string("12345")]))
            #expect(
                try await enabler.metadata(.userMetadata(key: "householdID")) == MetadataAnswer(value: .string("hh-0001"), encrypted: false)
            )
            #expect(try await enabler.metadata(.authenticationTTL).value == .string(String(token.expires)))
            #expect(try await enabler.metadata(.authorizationTTL(resource: "news")).value != nil)
            #expect(try await enabler.metadata(.deviceID).value?.stringValue?.count == 32)

            let loggedOut = try await enabler.logout()
            #expect(!loggedOut.platformSSO)
            #expect(loggedOut.serverError == nil)
            let logoutPage = try #require(loggedOut.page)
            #expect(try await SandboxBrowser().navigate(to: logoutPage) == .redirect(try #require(URL(string: "adobepass://ios.app"))))
            await #expect(throws: AccessEnablerError.self) { try await enabler.checkAuthentication() }
            await #expect(throws: AccessEnablerError.self) { try await enabler.authorize(resource: "news") }
        }
    }
}
