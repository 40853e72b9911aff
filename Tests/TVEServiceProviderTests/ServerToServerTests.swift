import Foundation
import Hummingbird
import Testing
import TVEPassAPI
@testable import TVEServiceProvider

/// The server-to-server form of REST API v2 (a programmer's back end calls for its devices, naming each with
/// `X-Forwarded-For`), the client's address in the request context, and the one error shape.
@Suite("REST API v2 server to server; the client's address; the error shape")
struct ServerToServerTests {
    /// Tries `count` unknown session codes as `device`, forwarding `address`.
    static func guess(_ device: V2Device, forwarding address: String, count: Int) async throws -> [Int] {
        var headers = device.headers
        headers["X-Forwarded-For"] = address + ", 192.0.2.200"
        var statuses: [Int] = []
        for attempt in 0..<count {
            statuses.append(try await device.raw("GET", "tvekit-sandbox/sessions/NOPE\(attempt)", headers: headers).status)
        }
        return statuses
    }

    @Test("serverToServer: a back end's calls count against each device's forwarded address, not against the back end")
    func serverToServer() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.serverToServerApplications = ["back-end"]
        try await withSandbox(configuration) { sandbox in
            let bearer = try await registerApp(sandbox.http.base, keys: sandbox.keys, clock: sandbox.clock, subject: "back-end")
            let backEnd = V2Device(sandbox, bearer: bearer)
            // One device's guesses stop at the limit...
            let first = try await Self.guess(backEnd, forwarding: "198.51.100.7", count: 21)
            #expect(first.prefix(20).allSatisfy { $0 == 400 } && first.last == 429)
            // ...and another device of the same back end is not stopped with it.
            #expect(try await Self.guess(backEnd, forwarding: "198.51.100.8", count: 1) == [400])
        }
    }

    @Test("forwardedForSpoofing: an app that is not a back end cannot escape the guessing limit by writing X-Forwarded-For")
    func forwardedForSpoofing() async throws {
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.serverToServerApplications = ["back-end"]
        try await withSandbox(configuration) { sandbox in
            let app = V2Device(sandbox)
            var statuses: [Int] = []
            for attempt in 0..<21 { statuses += try await Self.guess(app, forwarding: "203.0.113.\(attempt + 1)", count: 1) }
            #expect(statuses.prefix(20).allSatisfy { $0 == 400 } && statuses.last == 429)
        }
    }

    @Test("clientAddressInContext: the address the provider counts by travels in the request context, forwarded only when trusted")
    func clientAddressInContext() async throws {
        let router = Router(context: ServerRequestContext.self)
        let trusted = router.group("trusted")
        trusted.add(middleware: ClientAddressMiddleware<ServerRequestContext>(trustsForwardedFor: true, isServerToServer: { _ in false }))
        trusted.get("address") { _, context -> String in context.clientAddress ?? "none" }
        let untrusted = router.group("untrusted")
        untrusted.add(
            middleware: ClientAddressMiddleware<ServerRequestContext>(trustsForwardedFor: false, isServerToServer: { _ in false }))
        untrusted.get("address") { _, context -> String in context.clientAddress ?? "none" }
        router.get("outside") { _, context -> String in context.clientAddress ?? "none" }
        try await LocalServer.run(router) { (url: URL) async throws -> Void in
            let http = HTTPClient(base: url)
            // Behind a proxy of ours, the last entry is the one the proxy appended; the first is the client's to write.
            let forwarded = ["X-Forwarded-For": "203.0.113.9, 2001:db8::1"]
            #expect(try await http.send("GET", "trusted/address", headers: forwarded).text == ClientAddress.key("2001:db8::1"))
            #expect(try await http.send("GET", "trusted/address", headers: ["X-Forwarded-For": "not-an-address"]).text == "127.0.0.1")
            #expect(try await http.send("GET", "untrusted/address", headers: forwarded).text == "127.0.0.1")
            #expect(try await http.send("GET", "outside").text == "none")
        }
    }

    @Test("oneErrorShape: a service-provider error is equal on its code, says where it was made, and answers itself in its group's shape")
    func oneErrorShape() async throws {
        let one = ServiceProviderError.badRequest("invalid_parameter", "first")
        let two = ServiceProviderError.badRequest("invalid_parameter", "second")
        #expect(one == two && one.hashValue == two.hashValue)
        #expect(one != ServiceProviderError.unknownRequestor)
        #expect(one.file.hasSuffix("ServerToServerTests.swift") && one.line > 0)
        #expect(one.description.hasPrefix("invalid_parameter: first ("))
        #expect(one.status == .badRequest)
        let router = Router(context: ServerRequestContext.self)
        for (path, enhanced) in [("enhanced", true), ("legacy", false)] {
            let group = router.group(RouterPath(path))
            group.add(middleware: ErrorShapeMiddleware<ServerRequestContext>(enhanced: enhanced))
            group.get("fail") { _, _ -> String in throw one }
            group.get("crash") { _, _ -> String in throw CancellationError() }
        }
        try await LocalServer.run(router) { (url: URL) async throws -> Void in
            let http = HTTPClient(base: url)
            let enhanced = try await http.send("GET", "enhanced/fail")
            #expect(enhanced.status == 400 && enhanced.json["code"] as? String == "invalid_parameter" && enhanced.json["trace"] is String)
            let legacy = try await http.send("GET", "legacy/fail")
            #expect(legacy.status == 400 && legacy.json["code"] == nil && legacy.json["details"] as? String == "first")
            // Any other error answers 500 with no detail.
            let crash = try await http.send("GET", "enhanced/crash")
            #expect(crash.status == 500 && crash.json["code"] as? String == "internal_error" && !crash.text.contains("Cancellation"))
        }
    }
}
