import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider

/// A REST API v2 service provider that answers garbage, the wrong shape, an error of every kind, or nothing: each gives
/// the documented callback, never a crash; and the access token's life (expiry, 401, forgotten credentials).
@Suite("AccessEnabler over REST API v2: hostile service providers and the access token")
struct V2HostileProviderTests {
    /// One broken answer and where it shows.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let path: String
        let answer: ScriptedTransport.Answer
        var testDescription: String { name }
    }

    static let json = ["Content-Type": "application/json"]

    static let configurationCases: [Case] = [
        Case(name: "configuration: not JSON", method: "GET", path: "/configuration", answer: .status(200, body: "{not json")),
        Case(name: "configuration: wrong shape", method: "GET", path: "/configuration", answer: .status(200, body: #"{"requestor":5}"#)),
        Case(
            name: "configuration: HTML", method: "GET", path: "/configuration",
            answer: .status(200, body: "<html>", headers: ["Content-Type": "text/html"])),
        Case(name: "configuration: 500", method: "GET", path: "/configuration", answer: .status(500, body: "oops")),
        Case(name: "configuration: unreachable", method: "GET", path: "/configuration", answer: .unreachable),
    ]

    @Test("setRequestor against a broken configuration: status with the error, then setRequestorComplete(0)", arguments: configurationCases)
    func brokenConfiguration(_ broken: Case) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on(broken.method, broken.path, broken.answer)
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.checkAuthorization("news")
            await enabler.drain()
            let flow = recorder.flow
            guard flow.count >= 2, case .status = flow[0] else { Issue.record("\(flow)"); return }
            #expect(flow[1] == .requestorComplete(0))
            #expect(flow.last == .failed("news", code: "USER_NOT_AUTHENTICATED_ERROR", description: ""))
        }
    }

    static let sessionCases: [Case] = [
        Case(name: "sessions: not JSON", method: "POST", path: "/tvekit-sandbox/sessions", answer: .status(200, body: "{")),
        Case(
            name: "sessions: no code", method: "POST", path: "/tvekit-sandbox/sessions",
            answer: .status(
                200,
                body: #"{"actionName":"authenticate","actionType":"interactive","reasonType":"none","serviceProvider":"x","sessionId":"s"}"#
            )),
        Case(
            name: "sessions: unknown action", method: "POST", path: "/tvekit-sandbox/sessions",
            answer: .status(
                200, body: #"{"actionName":"dance","actionType":"interactive","reasonType":"none","serviceProvider":"x","sessionId":"s"}"#)),
        Case(
            name: "sessions: a javascript: URL", method: "POST", path: "/tvekit-sandbox/sessions",
            answer: .status(
                200,
                body:
                    #"{"actionName":"authenticate","actionType":"interactive","code":"ABC1234","url":"javascript:alert(1)","reasonType":"none","serviceProvider":"x","sessionId":"s"}"#
            )),
        Case(
            name: "sessions: 403 Enhanced Error", method: "POST", path: "/tvekit-sandbox/sessions",
            answer: .status(403, body: #"{"status":403,"code":"invalid_requestor","message":"no"}"#)),
        Case(
            name: "sessions: 429", method: "POST", path: "/tvekit-sandbox/sessions",
            answer: .status(429, body: #"{"status":429,"code":"maximum_attempts_exceeded","message":"slow down"}"#)),
    ]

    @Test(
        "setSelectedProvider against a broken session answer: setAuthenticationStatus(0, GENERIC_AUTHENTICATION_ERROR), no page",
        arguments: sessionCases)
    func brokenSession(_ broken: Case) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on(broken.method, broken.path, broken.answer)
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            await enabler.drain()
            recorder.reset()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"))
            #expect(recorder.lastNavigation == nil)
        }
    }

    static let decisionCases: [Case] = [
        Case(name: "decisions: not JSON", method: "POST", path: "/decisions/authorize/", answer: .status(200, body: "[")),
        Case(
            name: "decisions: authorized without a token", method: "POST", path: "/decisions/authorize/",
            answer: .status(
                200,
                body:
                    #"{"decisions":[{"resource":"news","serviceProvider":"tvekit-sandbox","mvpd":"SandboxTempPass","authorized":true,"source":"temppass"}]}"#
            )),
        Case(
            name: "decisions: another resource", method: "POST", path: "/decisions/authorize/",
            answer: .status(
                200,
                body:
                    #"{"decisions":[{"resource":"sports","serviceProvider":"tvekit-sandbox","mvpd":"SandboxTempPass","authorized":true,"source":"mvpd","token":{"serializedToken":"abc"}}]}"#
            )),
        Case(name: "decisions: none", method: "POST", path: "/decisions/authorize/", answer: .status(200, body: #"{"decisions":[]}"#)),
        Case(name: "decisions: 500", method: "POST", path: "/decisions/authorize/", answer: .status(500, body: "")),
        Case(name: "decisions: unreachable", method: "POST", path: "/decisions/authorize/", answer: .unreachable),
    ]

    @Test(
        "checkAuthorization against a broken decision: tokenRequestFailed(USER_NOT_AUTHORIZED_ERROR), the user stays authenticated",
        arguments: decisionCases)
    func brokenDecision(_ broken: Case) async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let recorder = Recorder()
            let core = provider.v2Enabler(transport: transport)
            let enabler = makeEnabler(core, recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxTempPass")
            await enabler.drain()
            transport.on(broken.method, broken.path, broken.answer)
            recorder.reset()
            enabler.checkAuthorization("news")
            enabler.checkPreauthorizedResources(["news"])
            await enabler.drain()
            guard case .failed("news", "USER_NOT_AUTHORIZED_ERROR", let text)? = recorder.flow.first else {
                Issue.record("\(recorder.flow)"); return
            }
            #expect(!text.isEmpty)
            #expect(recorder.flow.last == .preauthorized(["news"]))
            let authentication = try await core.checkAuthentication()
            #expect(authentication.mvpd == "SandboxTempPass")
        }
    }

    @Test("broken profiles while completing a login or polling, a broken logout: the documented callbacks")
    func brokenProfilesAndLogout() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let page = try #require(recorder.lastNavigation)
            guard case .redirect(let back) = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
            else {
                Issue.record("no redirect"); return
            }
            transport.on(
                "GET", "/profiles/SandboxCable", .status(200, body: #"{"profiles":{"SandboxCable":{"notAfter":"soon"}}}"#), times: 1)
            recorder.reset()
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(0, "GENERIC_AUTHENTICATION_ERROR"))
            // The login is still in progress: the same redirect completes it once the answers are sound again.
            enabler.handleExternalURL(back)
            await enabler.drain()
            #expect(recorder.flow.last == .authenticationStatus(1, ""))

            transport.on("GET", "/logout/SandboxCable", .status(200, body: "{{{{"))
            recorder.reset()
            enabler.logout()
            await enabler.drain()
            guard recorder.flow.count == 2, case .status("INTERNAL_ERROR", _) = recorder.flow[0] else {
                Issue.record("\(recorder.flow)"); return
            }
            #expect(recorder.flow[1] == .authenticationStatus(0, ""))
        }
    }

    @Test("tvOS polling through garbage profiles answers keeps waiting and succeeds once the answers are sound")
    func garbageWhilePolling() async throws {
        try await withLocalProvider { provider in
            let transport = ScriptedTransport()
            transport.on("GET", "/profiles/code/", .status(200, body: "\u{0}\u{1}garbage"), times: 3)
            let recorder = Recorder()
            let enabler = makeEnabler(provider.v2Enabler(platform: .tvOS, transport: transport), recorder)
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            enabler.getAuthentication()
            enabler.setSelectedProvider("SandboxCable")
            await enabler.drain()
            let code = try #require(recorder.lastRegistrationCode)
            let page = try #require(URL(string: provider.url.absoluteString + "/api/v2/authenticate/tvekit-sandbox/\(code)"))
            _ = try await SandboxBrowser().navigate(to: page, username: "viewer", password: "sandbox-password")
            #expect(await recorder.wait { $0 == .authenticationStatus(1, "") } != nil)
            #expect(transport.sent("/profiles/code/").count >= 4)
        }
    }

    @Test("a service provider that accepts the connection and never answers: setRequestor ends at the transport's deadline with status 0")
    func hangingProvider() async throws {
        let listener = try HangingListener()
        defer { listener.close() }
        try await withLocalProvider { provider in
            let recorder = Recorder()
            let core = provider.sandbox.accessEnabler {
                $0.api = .v2
                $0.transport = URLSessionTransport(timeout: 3)  // room for a sanitizer build's registration with the live provider
            }
            let enabler = makeEnabler(core, recorder)
            let started = ContinuousClock.now
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [listener.url])
            await enabler.drain()
            #expect(recorder.flow.last == .requestorComplete(0))
            #expect(ContinuousClock.now - started < .seconds(20))
            // One provider hanging among two: the other's MVPDs are offered.
            recorder.reset()
            enabler.setRequestor("tvekit-sandbox", serviceProviders: [listener.url, provider.url])
            await enabler.drain()
            #expect(recorder.flow.last == .requestorComplete(1))
        }
    }
}

/// A TCP listener on loopback that accepts connections and never answers.
final class HangingListener: Sendable {
    let descriptor: Int32
    let url: URL

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw URLError(.cannotConnectToHost) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))") else { throw URLError(.badURL) }
        self.url = url
    }

    func close() { _ = Glibc.close(descriptor) }
}
