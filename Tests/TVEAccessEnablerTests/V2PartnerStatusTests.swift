import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEPassAPIv2
import TVESandbox

/// `AP-Partner-Framework-Status` carries the platform framework's real state on every call Adobe's contract lists it on.
@Suite("REST API v2: AP-Partner-Framework-Status from the platform's framework")
struct V2PartnerStatusTests {
    static func status(_ request: EntitlementHTTPRequest) throws -> PassAPIv2.PartnerFrameworkStatus? {
        try V2CookbookTests.header(request, PassAPIv2.PartnerFrameworkStatus.headerName).map {
            try PassAPIv2.PartnerFrameworkStatus(header: $0)
        }
    }

    @Test("the framework's permission, provider and expiry on profiles, profiles/{mvpd}, both decisions and the partner calls")
    func partnerStatusOnEveryListedCall() async throws {
        try await withLocalProvider { provider in
            let expires = provider.clock.nowMilliseconds + 30 * 86_400_000
            let account = SandboxTVProviderAccount(
                serviceProvider: provider.url, mvpdForProvider: ["sandbox-sso": "SandboxSSO"], access: .granted,
                signedIn: PlatformSSOTests.ssoSignIn, authenticationExpires: expires)
            let transport = ScriptedTransport()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep, tvProviderAccount: account))
            try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            // The silent exchange of setRequestor's delegate path, through the async API.
            #expect(await core.silentPlatformSSO().token?.mvpd == "SandboxSSO")
            _ = try await core.authorize(resource: "news")
            _ = try await core.preauthorize(["news"], cache: false)
            _ = try await core.metadata(.userMetadata(key: "zip"))
            for path in [
                "/sessions/sso/Apple", "/profiles/sso/Apple", "/profiles/SandboxSSO", "/decisions/authorize/", "/decisions/preauthorize/",
            ] {
                let request = try #require(transport.sent(path).last, "\(path)")
                let status = try #require(try Self.status(request), "\(path)")
                #expect(status.frameworkPermissionInfo?.accessStatus == "granted", "\(path)")
                #expect(status.frameworkProviderInfo?.id == "sandbox-sso", "\(path)")
                #expect(status.frameworkProviderInfo?.expirationDate == expires, "\(path)")
            }
            let all = try #require(transport.sent("/api/v2/tvekit-sandbox/profiles").first { $0.url.path.hasSuffix("/profiles") })
            #expect(try Self.status(all)?.frameworkPermissionInfo?.accessStatus == "granted")

            // The viewer revokes the permission in Settings: the next calls say so, and name no provider session.
            account.setAccess(.denied)
            _ = try? await core.authorize(resource: "news")
            let lastAuthorize = try #require(transport.sent("/decisions/authorize/").last)
            let denied = try #require(try Self.status(lastAuthorize))
            #expect(denied.frameworkPermissionInfo?.accessStatus == "denied" && denied.frameworkProviderInfo == nil)
        }
    }

    @Test("without a platform framework, no AP-Partner-Framework-Status is sent")
    func noFrameworkNoHeader() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let core = provider.v2Enabler(transport: transport)
            try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            _ = try await logIn(core)
            _ = try await core.authorize(resource: "news")
            #expect(!transport.requests.withLock { $0 }.contains { (try? Self.status($0)) != nil })
        }
    }
}
