import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVESandbox
import TVEServiceProvider

/// What reaches the service provider, and what does not: withData, device_info, handleSVC, the calls answered locally.
@Suite("AccessEnabler: what reaches the service provider (withData, device_info, handleSVC, local answers)")
struct RequestDataTests {
    @Test(
        "withData and device_info reach the service provider: generic_data on the login page and on authorize, X-Device-Info on every call")
    func withDataAndDeviceInfo() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = RecordingTransport()
            let enabler = makeEnabler(provider.enabler(transport: transport), recorder)
            let deviceInfo = Data(#"{"model":"Test TV","osName":"tvOS"}"#.utf8).base64EncodedString()
            enabler.setOptions(.init(deviceInfo: deviceInfo))
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication(forceAuthn: false, withData: ["campaign": "spring"])
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            let pageQuery = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(
                pageQuery.first { $0.name == "generic_data" }?.value.flatMap { JSONValue(jsonText: Data($0.utf8)) }
                    == .object(["campaign": .string("spring")]))
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)

            enabler.checkAuthorization("news", withData: ["check": "1"])
            enabler.getAuthorization("sports", withData: ["get": "2"])
            await enabler.drain()
            let tokens = recorder.flow.compactMap { if case .token(_, let resource) = $0 { resource } else { nil } }
            #expect(tokens == ["news", "sports"])
            let authorizations = transport.queries(endingWith: "/api/v1/authorize")
            #expect(authorizations.map { $0["resource"] } == ["news", "sports"])
            #expect(
                authorizations.map { $0["generic_data"].flatMap { JSONValue(jsonText: Data($0.utf8)) } }
                    == [.object(["check": .string("1")]), .object(["get": .string("2")])])
            let requests = transport.requests.withLock { $0 }
            #expect(!requests.isEmpty && requests.allSatisfy { $0.headers["X-Device-Info"] == deviceInfo })
        }
    }

    @Test(
        "checkAuthentication sends no request; logout with handleSVC goes through navigateToUrl(_:useSVC: true)",
        arguments: AsyncAccessEnabler.ServiceAPI.allCases)
    func noNetworkAndSVCLogout(_ api: AsyncAccessEnabler.ServiceAPI) async throws {
        try await withLocalProvider { provider in
            let transport = RecordingTransport()
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(transport: transport, api: api), recorder)
            enabler.setOptions(.init(handleSVC: true))
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            await enabler.drain()
            let before = transport.urls.withLock { $0.count }
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(transport.urls.withLock { $0.count } == before)
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            guard case .navigate(let page, true)? = recorder.flow.last else { Issue.record("\(recorder.flow)"); return }
            #expect(page.path == (api == .v1 ? "/api/v1/logout" : "/idp/SandboxCable/logout"))
        }
    }

    @Test("checkPreauthorizedResources with cache answers stored authorizations without a request; without cache it asks")
    func preauthorizationCache() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = RecordingTransport()
            let enabler = makeEnabler(provider.enabler(transport: transport), recorder)
            try await logIn(enabler, recorder, provider)
            enabler.checkAuthorization("news")
            await enabler.drain()
            let before = transport.queries(endingWith: "/preauthorize").count
            recorder.reset()
            enabler.checkPreauthorizedResources(["news"], cache: true)
            await enabler.drain()
            #expect(transport.queries(endingWith: "/preauthorize").count == before)
            enabler.checkPreauthorizedResources(["news", "mature-show"], cache: false)
            await enabler.drain()
            #expect(transport.queries(endingWith: "/preauthorize").count == before + 1)
            #expect(recorder.flow == [.preauthorized(["news"]), .preauthorized(["news"])])
        }
    }
}
