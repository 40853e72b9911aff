import Foundation
import Testing
import TVEPassAPIv2
import TVESandbox

@testable import TVEAccessEnabler

@Suite("V2ServiceProviderClient: REST API v2 for the flow layer")
struct V2ServiceProviderClientTests {
    static func client(
        _ provider: LocalProvider, transport: any EntitlementTransport = URLSessionTransport(timeout: 30), clock: TestClock? = nil
    ) throws -> V2ServiceProviderClient {
        let credentials = ClientCredentials(
            baseURL: provider.url, softwareStatement: provider.softwareStatement, redirectURI: nil, transport: transport,
            clock: clock ?? provider.clock, sleep: { _ in }, deviceInfo: "e30=", stored: nil)
        return V2ServiceProviderClient(
            credentials: credentials, serviceProviderURL: provider.url, requestor: "tvekit-sandbox", transport: transport,
            headers: try V2DeviceHeaders(deviceID: "device-1", deviceInfo: nil, platform: .tvOS), clock: clock ?? provider.clock)
    }

    @Test("configuration and a session: DCR, the bearer token and the device headers, through the app's transport")
    func configurationAndSession() async throws {
        try await withLocalProvider { provider in
            let client = try Self.client(provider)
            let mvpds = try await client.mvpds(serviceProvider: provider.url)
            #expect(mvpds.map(\.id) == ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"])
            let session = try await client.createSession(mvpd: nil, domainName: "tvekit.test", redirectURL: "adobepass://ios.app")
            #expect(session.actionName == "resume")
            #expect(session.code?.count == 7)
            let resumed = try await client.resumeSession(code: try #require(session.code), mvpd: "SandboxCable")
            #expect(resumed.actionName == "authenticate")
            await #expect {
                _ = try await client.resumeSession(code: "NOPE123", mvpd: "SandboxCable")
            } throws: { ($0 as? AccessEnablerError)?.code == .genericAuthentication }
            let temp = try await client.createSession(
                mvpd: "SandboxTempPass", domainName: "tvekit.test", redirectURL: "adobepass://ios.app")
            #expect(temp.actionName == "authorize")
        }
    }

    @Test("an expired access token is refreshed once after a 401, and the call goes through")
    func refreshOn401() async throws {
        try await withLocalProvider { provider in
            // The device's clock stands still: only the provider's 401 can tell the client its token expired.
            let client = try Self.client(provider, clock: TestClock(provider.clock.nowMilliseconds))
            _ = try await client.mvpds(serviceProvider: provider.url)
            provider.clock.advance(seconds: 21_601)
            #expect(try await client.mvpds(serviceProvider: provider.url).count == 4)
        }
    }

    @Test("errors become the AccessEnabler's codes: an unknown MVPD, a garbage answer")
    func errors() async throws {
        try await withLocalProvider { provider in
            let client = try Self.client(provider)
            await #expect {
                _ = try await client.createSession(mvpd: "NoSuchMVPD", domainName: "tvekit.test", redirectURL: "adobepass://ios.app")
            } throws: { ($0 as? AccessEnablerError)?.code == .providerNotAvailable }
            let garbage = try Self.client(provider, transport: FaultyTransport([("/api/v2", .status(200, body: "{not json"), 10)]))
            await #expect {
                _ = try await garbage.mvpds(serviceProvider: provider.url)
            } throws: { ($0 as? AccessEnablerError)?.code == .internalError }
        }
    }

    @Test("a second-screen login, the profile by code, decisions (preauthorize split into calls of 5) and logout")
    func loginDecisionsLogout() async throws {
        try await withLocalProvider { provider in
            let client = try Self.client(provider)
            let session = try await client.createSession(
                mvpd: "SandboxCable", domainName: "tvekit.test", redirectURL: "adobepass://ios.app")
            let code = try #require(session.code)
            #expect(try await client.profiles(code: code).isEmpty)
            let url = try #require(URL(string: provider.url.absoluteString + (session.url ?? "")))
            let outcome = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
            #expect(outcome == .redirect(try #require(URL(string: "adobepass://ios.app"))))
            #expect(try await client.profiles(code: code)["SandboxCable"]?._type == "regular")
            #expect(try await client.profiles(mvpd: "SandboxCable")["SandboxCable"] != nil)

            let resources = ["news", "sports", "movies", "premium-sports", "kids", "drama", "mature-show"]
            let pre = try await client.decisions(authorize: false, mvpd: "SandboxCable", resources: resources)
            #expect(pre.map(\.resource) == resources)
            #expect(pre.map(\.authorized) == [true, true, true, false, true, true, false])
            #expect(pre.allSatisfy { $0.token == nil })
            let authorized = try await client.decisions(authorize: true, mvpd: "SandboxCable", resources: ["news"])
            #expect(authorized.first?.token?.serializedToken != nil)

            let logout = try await client.logout(mvpd: "SandboxCable", redirectURL: nil)
            #expect(logout?.actionName == "complete")
            #expect(try await client.profiles().isEmpty)
        }
    }

    @Test("Apple single sign-on: a partner_profile session, the platform's SAML response, an appleSSO profile; a denial falls back")
    func appleSSO() async throws {
        try await withLocalProvider { provider in
            let client = try Self.client(provider)
            let granted = PassAPIv2.PartnerFrameworkStatus(
                frameworkPermissionInfo: .init(accessStatus: "granted"),
                frameworkProviderInfo: .init(id: "sandbox-sso", expirationDate: nil))
            let session = try await client.partnerSession(domainName: "tvekit.test", redirectURL: "adobepass://ios.app", status: granted)
            #expect(session.actionName == "partner_profile")
            let request = try #require(session.authenticationRequest?.request)
            let xml = String(decoding: try #require(Data(base64Encoded: request)), as: UTF8.self)
            let requestID = try #require(xml.split(separator: "\"").dropFirst().first { $0.hasPrefix("_") }.map(String.init))
            // What the platform's framework hands the app: the local IdP's single-sign-on answer.
            let answer = try await URLSessionTransport(timeout: 30).send(
                EntitlementHTTPRequest(
                    method: "POST", url: provider.url.appendingPathComponent("idp/SandboxSSO/sso"),
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Data("username=sso-viewer&password=sandbox-password&request_id=\(requestID)".utf8)))
            let saml = try #require((try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["SAMLResponse"] as? String)
            let profiles = try await client.partnerProfile(samlResponse: saml, status: granted)
            #expect(profiles["SandboxSSO"]?._type == "appleSSO")
            #expect(profiles["SandboxSSO"]?.issuer == "Apple")

            let denied = PassAPIv2.PartnerFrameworkStatus(
                frameworkPermissionInfo: .init(accessStatus: "denied"), frameworkProviderInfo: nil)
            let fallback = try await client.partnerSession(domainName: "tvekit.test", redirectURL: "adobepass://ios.app", status: denied)
            #expect(fallback.reasonType == "pfs_fallback")
            await #expect {
                _ = try await client.partnerProfile(samlResponse: saml, status: denied)
            } throws: { ($0 as? AccessEnablerError)?.code == .platformSSO }
        }
    }
}
