import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Testing
import TVEAccessEnabler
import TVEJSON
import TVEServer

/// A hostile service provider: answers that drip a byte at a time or never end.
enum HostileProvider {
    /// Every POST and GET answers 200 and then sends `chunks` chunks of `chunkBytes`, pausing `pause` between them
    /// (giving up after 30 s or once the client has gone). `written` counts the chunks that went out.
    static func router(chunks: Int, chunkBytes: Int, pause: Duration, declaredLength: Bool = false,
                       written: NIOLockedValueBox<Int>) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: chunkBytes)
            let body = ResponseBody(contentLength: declaredLength ? chunks * chunkBytes : nil) { writer in
                let end = ContinuousClock.now + .seconds(30)
                for _ in 0..<chunks where ContinuousClock.now < end {
                    try await writer.write(chunk)
                    written.withLockedValue { $0 += 1 }
                    if pause > .zero { try await Task.sleep(for: pause) }
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        }
        router.get("**", use: handler)
        router.post("**", use: handler)
        return router
    }
}

/// A transport that holds requests to paths starting with `path` while the gate is closed.
final class GatedTransport: EntitlementTransport {
    let inner = URLSessionTransport(timeout: 10)
    let path: String
    let closed = NIOLockedValueBox(false)
    init(holding path: String) { self.path = path }
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        while request.url.path.hasPrefix(path), closed.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        return try await inner.send(request)
    }
}

@Suite("AccessEnabler: hostile service providers, logout failures, stray redirects, withData")
struct HardeningTests {
    @Test("slowDripIsCutOff: an answer dripped a byte at a time ends at the transport's deadline, and the next calls still answer")
    func slowDripIsCutOff() async throws {
        let written = NIOLockedValueBox(0)
        try await LocalServer.run(HostileProvider.router(chunks: 1000, chunkBytes: 1, pause: .milliseconds(100), written: written)) { url in
            let transport = URLSessionTransport(timeout: 1)
            let started = ContinuousClock.now
            await #expect { _ = try await transport.send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("config"))) }
                throws: { ($0 as? AccessEnablerError)?.message.contains("within") == true }
            #expect(ContinuousClock.now - started < .seconds(5))

            // Through the delegate API: setRequestor fails in bounded time and the queue moves on.
            let recorder = Recorder()
            let core = AsyncAccessEnabler(softwareStatement: "unused", configuration: .init(transport: transport, sleep: SleepRecorder().sleep))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [url])
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(recorder.flow.contains(.requestorComplete(0)))
            #expect(recorder.flow.last == .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"))
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("hugeAnswerIsAbandoned: a 64 MiB answer fails once it passes the 4 MiB limit, whether its length is declared or not")
    func hugeAnswerIsAbandoned() async throws {
        for declared in [false, true] {
            let written = NIOLockedValueBox(0)
            // A millisecond between chunks: the whole answer takes over a second to send, the limit is passed in 70 ms.
            let router = HostileProvider.router(chunks: 1024, chunkBytes: 64 * 1024, pause: .milliseconds(1), declaredLength: declared,
                                                written: written)
            try await LocalServer.run(router) { url in
                let transport = URLSessionTransport(timeout: 30)
                await #expect { _ = try await transport.send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("config"))) }
                    throws: { ($0 as? AccessEnablerError)?.message.contains("over 4194304 bytes") == true }
                // The call ended while the server was still sending, and the download stopped with it: the answer was
                // never read, let alone held, whole.
                let atThrow = written.withLockedValue { $0 }
                #expect(atThrow < 1024, "declared length: \(declared)")
                try await Task.sleep(for: .seconds(1))
                let later = written.withLockedValue { $0 }
                #expect(later < 1024 && later - atThrow < 256, "declared length: \(declared): \(atThrow) chunks, then \(later)")
            }
        }
    }

    @Test("a custom limit applies, and an answer within it arrives whole")
    func answerWithinLimit() async throws {
        let written = NIOLockedValueBox(0)
        try await LocalServer.run(HostileProvider.router(chunks: 16, chunkBytes: 1024, pause: .zero, written: written)) { url in
            let response = try await URLSessionTransport(timeout: 5, maximumResponseBytes: 16 * 1024)
                .send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("a")))
            #expect(response.status == 200 && response.body.count == 16 * 1024)
            await #expect(throws: AccessEnablerError.self) {
                _ = try await URLSessionTransport(timeout: 5, maximumResponseBytes: 16 * 1024 - 1)
                    .send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("b")))
            }
        }
    }

    @Test("a cancelled call returns at once instead of waiting for the answer")
    func cancellationEndsTheCall() async throws {
        let written = NIOLockedValueBox(0)
        try await LocalServer.run(HostileProvider.router(chunks: 1000, chunkBytes: 1, pause: .milliseconds(100), written: written)) { url in
            let started = ContinuousClock.now
            let call = Task { try await URLSessionTransport(timeout: 60).send(EntitlementHTTPRequest(method: "GET", url: url.appendingPathComponent("c"))) }
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            await #expect(throws: CancellationError.self) { _ = try await call.value }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("logout after platform SSO: a service provider that cannot be told still gives VSA203, the logout page and status 0")
    func logoutFailureKeepsVSA203() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = FaultyTransport([("/api/v1/logout", .status(500, body: #"{"status":500,"message":"Internal Error"}"#), 1)])
            let core = AsyncAccessEnabler(softwareStatement: provider.softwareStatement, configuration: .init(
                transport: transport, clock: provider.clock, sleep: SleepRecorder().sleep, tvProviderAccount: PlatformSSOTests.account(provider)))
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.first == .status("VSA203", AdvancedStatus.signOutInSettings.message))
            guard flow.count == 3, case .status("INTERNAL_ERROR", let message) = flow[1], case .navigate(let page, false) = flow[2] else {
                Issue.record("\(flow)")
                return
            }
            #expect(message.contains("logout failed"))
            #expect(try await core.logout().page == nil)  // nobody is logged in any more
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page) else { Issue.record("no redirect"); return }
            recorder.reset()
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "")])
        }
    }

    @Test("strayRedirectForAnotherMVPD: handleExternalURL with no login made completes nothing when the device is authenticated with another MVPD")
    func strayRedirectForAnotherMVPD() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let enabler = makeEnabler(provider.enabler(), recorder)
            try await logIn(enabler, recorder, provider)
            recorder.reset()
            enabler.getAuthentication(forceAuthn: true)
            enabler.setSelectedProvider("SandboxSSO")
            enabler.handleExternalURL(try #require(URL(string: AsyncAccessEnabler.defaultRedirectURL)))
            enabler.getSelectedProvider()
            await enabler.drain()
            let flow = recorder.flow
            #expect(flow.count == 4, "\(flow)")
            #expect(flow.suffix(2) == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"), .selected("SandboxSSO")])
            // Cancelling the login leaves the authentication with SandboxCable as it was.
            recorder.reset()
            enabler.setSelectedProvider(nil)
            enabler.getSelectedProvider()
            enabler.checkAuthentication()
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "PROVIDER_NOT_SELECTED_ERROR"), .selected("SandboxCable"),
                                      .authenticationStatus(1, "")])
        }
    }

    @Test("withData and device_info reach the service provider: generic_data on the login page and on authorize, X-Device-Info on every call")
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
            #expect(pageQuery.first { $0.name == "generic_data" }?.value.flatMap { JSONValue(jsonText: Data($0.utf8)) }
                == .object(["campaign": .string("spring")]))
            try await DelegateFlowTests.completeWebLogin(enabler, recorder)

            enabler.checkAuthorization("news", withData: ["check": "1"])
            enabler.getAuthorization("sports", withData: ["get": "2"])
            await enabler.drain()
            let tokens = recorder.flow.compactMap { if case .token(_, let resource) = $0 { resource } else { nil } }
            #expect(tokens == ["news", "sports"])
            let authorizations = transport.queries(endingWith: "/api/v1/authorize")
            #expect(authorizations.map { $0["resource"] } == ["news", "sports"])
            #expect(authorizations.map { $0["generic_data"].flatMap { JSONValue(jsonText: Data($0.utf8)) } }
                == [.object(["check": .string("1")]), .object(["get": .string("2")])])
            let requests = transport.requests.withLockedValue { $0 }
            #expect(!requests.isEmpty && requests.allSatisfy { $0.headers["X-Device-Info"] == deviceInfo })
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

    @Test("a network failure while completing the login reports GENERIC_AUTHENTICATION_ERROR")
    func networkFailureOnCompletion() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = FaultyTransport([("/api/v1/tokens/authn", .unreachable, 1)])
            let enabler = makeEnabler(provider.enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password") else {
                Issue.record("no redirect"); return
            }
            recorder.reset()
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow == [.authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR")])
            // The login is still pending: once the network is back, the same redirect completes it.
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))
        }
    }

    @Test("the token file stays readable: at most 100 authorizations, those expiring soonest dropped first")
    func authorizationsAreBounded() throws {
        var entitlements = StoredEntitlements(deviceID: "d")
        for index in 0..<150 {
            entitlements.authorizations["r\(index)"] = AuthorizationToken(resource: "r\(index)", mvpd: "m", expires: Int64(1000 + index))
        }
        entitlements.limitAuthorizations()
        #expect(entitlements.authorizations.count == StoredEntitlements.maximumAuthorizations)
        #expect(entitlements.authorizations["r49"] == nil && entitlements.authorizations["r50"] != nil)

        // 40 resources of 16 KiB of quotes (escaped to 32 KiB, written twice) would be 2.5 MiB of JSON: the store drops the
        // soonest-expiring ones until the file is under its 1 MiB read limit, and reads it back.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-bound-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        var large = StoredEntitlements(deviceID: "d", authentication: AuthenticationToken(requestor: "r", mvpd: "m", userID: "u", expires: 9_999))
        for index in 0..<40 {
            let resource = String(repeating: "\"", count: 16 * 1024 - 3) + String(format: "%03d", index)
            large.authorizations[resource] = AuthorizationToken(resource: resource, mvpd: "m", expires: Int64(1000 + index))
        }
        try store.save(large, requestor: "r")
        let loaded = try #require(try store.load(requestor: "r"))
        #expect(loaded.authentication == large.authentication)
        #expect(loaded.authorizations.count > 0 && loaded.authorizations.count < 40)
        #expect(loaded.authorizations.values.map(\.expires).min() ?? 0 > 1000)
    }

    @Test("an MVPD entry with an oversized field is left out of the list")
    func oversizedMVPDEntriesAreDropped() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.mvpds.append(.init(id: "HugeCable", displayName: String(repeating: "H", count: 5000),
                                         users: [.init(username: "huge", password: "sandbox-password")]))
        configuration.requestors[0].mvpds.append("HugeCable")
        try await withLocalProvider(configuration) { provider in
            let mvpds = try await provider.enabler().setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            #expect(mvpds.map(\.id) == ["SandboxCable", "SandboxSSO"])
        }
    }

    @Test("tvOS: a logout made while the second-screen login is being stored wins; no status 1 follows the logout")
    func logoutDuringSecondScreenCompletion() async throws {
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let transport = GatedTransport(holding: "/api/v1/config")
            let enabler = makeEnabler(provider.enabler(platform: .tvOS, transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            // A setRequestor held at the service provider keeps the enabler busy (and its token store locked) ...
            transport.closed.withLockedValue { $0 = true }
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await Task.sleep(for: .milliseconds(100))
            // ... while the code is used on a phone and the polling finds the authentication, and the app logs out.
            var components = URLComponents(url: provider.url.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
            components?.queryItems = [.init(name: "requestor_id", value: "tvekit-sandbox"), .init(name: "mso_id", value: "SandboxCable"),
                                      .init(name: "reg_code", value: code)]
            _ = try await SandboxBrowser().navigate(to: try #require(components?.url), username: "viewer", password: "sandbox-password")
            try await Task.sleep(for: .milliseconds(300))
            recorder.reset()
            enabler.logout()
            transport.closed.withLockedValue { $0 = false }
            await enabler.drain()
            try await Task.sleep(for: .milliseconds(300))
            await enabler.drain()
            let statuses = recorder.flow.filter { if case .authenticationStatus = $0 { true } else { false } }
            #expect(statuses.last == .authenticationStatus(0, ""), "\(recorder.flow)")
            #expect(!statuses.contains(.authenticationStatus(1, "")), "\(recorder.flow)")
            await #expect(throws: AccessEnablerError.self) { try await enabler.core.checkAuthentication() }
        }
    }

    @Test("a polling interval of zero still waits and ends at the timeout")
    func zeroPollingInterval() async throws {
        try await withLocalProvider { provider in
            let sleeper = SleepRecorder()
            let core = AsyncAccessEnabler(softwareStatement: provider.softwareStatement, configuration: .init(
                clock: provider.clock, platform: .tvOS, pollingInterval: .zero, pollingTimeout: .milliseconds(100), sleep: sleeper.sleep))
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            _ = try await core.selectProvider("SandboxCable")
            await #expect(throws: AccessEnablerError.self) { _ = try await core.waitForSecondScreen() }
            #expect(!sleeper.recorded.isEmpty && sleeper.recorded.allSatisfy { $0 > .zero })
        }
    }
}
