import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox
import TVEServiceProvider
import TVEVerification
import TVETokens

@Suite("AccessEnabler: view media, tracking data, access-token refresh")
struct CookbookExtrasTests {
    @Test(
        "view media (cookbook G): the token from setToken is checked by the verification service before playback, once",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func viewMedia(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            try await logIn(enabler, recorder, provider)
            enabler.checkAuthorization("news")
            await enabler.drain()
            guard case .token(let token, "news")? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
            let service = try VerificationService(
                trustedKeys: [provider.keys.mediaTokenKey.publicKey], requestorIDs: ["tvekit-sandbox"],
                clock: provider.clock)
            try await LocalServer.run(service.router()) { url in
                func verify() async throws -> String? {
                    let body = Data(
                        JSONValue.object(["token": .string(token), "requestor": .string("tvekit-sandbox"), "resource": .string("news")])
                            .jsonText.utf8)
                    let response = try await URLSessionTransport().send(
                        EntitlementHTTPRequest(
                            method: "POST", url: url.appendingPathComponent("verify"), headers: ["Content-Type": "application/json"],
                            body: body))
                    return JSONValue(jsonText: response.body)?.objectValue?["result"]?.stringValue
                }
                let first = try await verify()
                let second = try await verify()
                #expect(first == "VALID_TOKEN")
                #expect(second == "TOKEN_REPLAYED")
            }
        }
    }

    @Test(
        "sendTrackingData carries the seeds' arrays: authenticationDetection (7), authorizationDetection (9), mvpdSelection (4)",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func trackingArrays(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(api: api), recorder)
            try await logIn(enabler, recorder, provider)
            enabler.checkAuthorization("news")
            enabler.checkAuthorization("news")
            await enabler.drain()
            let tracking = recorder.all.compactMap { if case .tracking(let type, let data) = $0 { (type, data) } else { nil } }
            let guid = tracking.first { $0.0 == .authentication && $0.1.first == "true" }?.1[2] ?? ""
            // The seeds' "GUID (md5 hashed)": MD5 of the authentication's user ID, in hex.
            let userID = try await enabler.core.checkAuthentication().userID
            #expect(guid == (try InsecureDigest.md5(Array(userID.utf8))).map { String(format: "%02x", $0) }.joined())
            #expect(guid.count == 32 && guid.allSatisfy(\.isHexDigit))
            #expect(tracking.contains { $0.0 == .getSelectedProvider && $0.1 == ["SandboxCable", "mobile", "ios", "iOS"] })
            #expect(
                tracking.contains { $0.0 == .authentication && $0.1 == ["true", "SandboxCable", guid, "false", "mobile", "ios", "iOS"] })
            let authorizations = tracking.filter { $0.0 == .authorization }.map(\.1)
            #expect(
                authorizations == [
                    ["true", "SandboxCable", guid, "false", "", "", "mobile", "ios", "iOS"],
                    ["true", "SandboxCable", guid, "true", "", "", "mobile", "ios", "iOS"],
                ])
        }
    }

    @Test(
        "the access token is refreshed when it expires (6 h) while the authentication (24 h) lives on",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func accessTokenRefresh(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let core = provider.enabler(api: api)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            _ = try await core.authorize(resource: "news")
            provider.clock.advance(seconds: 7 * 3600)
            let token = try await core.authorize(resource: "news")
            #expect(!token.isEmpty)
            #expect(try await core.checkAuthentication().mvpd == "SandboxCable")
        }
    }
}
