import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import NIOCore
import Testing
import TVECrypto
import Logging
import ServiceLifecycle
import TVEServiceProvider
import TVEVerification
import TVEVerificationServer
import TVETestSupport
import TVETokens

/// Starts a service on an ephemeral loopback port for the body, over real HTTP.
func withRunningService(_ service: VerificationService, _ body: @Sendable (URL) async throws -> Void) async throws {
    try await withRunningServer(service.router(), body)
}

/// Serves `router` on an ephemeral loopback port while `body` runs, then shuts it down gracefully.
func withRunningServer<Context: RequestContext>(_ router: Router<Context>, _ body: @Sendable (URL) async throws -> Void) async throws
where Context.Source == ApplicationRequestContextSource {
    try await LocalServer.run(router, body)
}

/// Runs the lean NIO transport in a ServiceGroup on an ephemeral port for the body, then shuts the group down
/// gracefully.
func withRunningNIOService(
    _ service: VerificationService, timeouts: VerificationHTTPServer.Timeouts = .init(), bearerSecret: BearerSecret? = nil,
    _ body: @Sendable (URL) async throws -> Void
) async throws {
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let server = VerificationHTTPServer(
        service: service, port: 0, timeouts: timeouts, bearerSecret: bearerSecret, onBound: { portContinuation.yield($0) })
    let group = ServiceGroup(configuration: .init(services: [server], logger: Logger(label: "test")))
    let running = Task { try await group.run() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    do {
        try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
    } catch {
        await group.triggerGracefulShutdown()
        try? await running.value
        throw error
    }
    await group.triggerGracefulShutdown()
    try await running.value
}

func post(_ url: URL, _ body: Data) async throws -> (Int, [String: Any]) {
    var request = URLRequest(url: url.appendingPathComponent("verify"))
    request.httpMethod = "POST"
    request.httpBody = body
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
}

@Suite("Media-token verification service")
struct VerificationServiceTests {
    static let key = Fixtures.leafKey
    static let now: Int64 = 1_767_225_600_000

    /// The two transports: Hummingbird's router (next to the service provider) and the lean NIO server.
    enum Transport: String, CaseIterable, Sendable { case hummingbird, nio }

    @Test(
        "POST /verify answers VALID_TOKEN with the fields, then TOKEN_REPLAYED; bad input is a 400; metrics count it all",
        arguments: Transport.allCases)
    func verify(transport: Transport) async throws {
        let service = try VerificationService(
            trustedKeys: [Self.key.publicKey], requestorIDs: ["tvekit-test"],
            clock: FixedMediaTokenClock(milliseconds: Self.now))
        let token = try MediaTokenIssuer(privateKey: Self.key, clock: FixedMediaTokenClock(milliseconds: Self.now))
            .issue(requestorID: "tvekit-test", resourceID: "res", mvpdId: "TestMVPD", issueTime: Self.now - 1000).serialized
        let run: (@Sendable (URL) async throws -> Void) async throws -> Void = { body in
            switch transport {
            case .hummingbird: try await withRunningService(service, body)
            case .nio: try await withRunningNIOService(service, body)
            }
        }
        try await run { url in
            let body = try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "tvekit-test", "resource": "res"])
            let (status, first) = try await post(url, body)
            #expect(status == 200)
            #expect(first["result"] as? String == "VALID_TOKEN")
            #expect(first["mvpdId"] as? String == "TestMVPD")
            #expect(first["resourceID"] as? String == "res")
            let (_, second) = try await post(url, body)
            #expect(second["result"] as? String == "TOKEN_REPLAYED")
            #expect(second["mvpdId"] == nil)
            let (_, wrongResource) = try await post(
                url, try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "tvekit-test", "resource": "other"]))
            #expect(wrongResource["result"] as? String == "INVALID_RESOURCE_ID")
            let (_, garbage) = try await post(
                url, try JSONSerialization.data(withJSONObject: ["token": "garbage", "requestor": "tvekit-test"]))
            #expect(garbage["result"] as? String == "INVALID_TOKEN_FORMAT")
            for bad in [
                Data("not json".utf8), Data(#"{"token": 1}"#.utf8), Data(#"{"token": "x", "requestor": "other"}"#.utf8),
                Data(#"{"token": "x", "requestor": "tvekit-test", "token": "y"}"#.utf8),
            ] {
                let (status, error) = try await post(url, bad)
                #expect(status == 400)
                #expect(error["error"] != nil)
            }
            let (huge, _) = try await post(url, Data(repeating: 0x41, count: VerificationService.maximumBodyBytes + 1))
            #expect(huge == 413)
            let (health, _) = try await URLSession.shared.data(from: url.appendingPathComponent("health"))
            #expect(String(decoding: health, as: UTF8.self) == "ok")
            let (metrics, _) = try await URLSession.shared.data(from: url.appendingPathComponent("metrics"))
            let text = String(decoding: metrics, as: UTF8.self)
            #expect(text.contains(#"tvekit_verifications_total{result="VALID_TOKEN"} 1"#))
            #expect(text.contains(#"tvekit_verifications_total{result="TOKEN_REPLAYED"} 1"#))
            #expect(text.contains(#"tvekit_verifications_total{result="BAD_REQUEST"} 5"#))
            #expect(text.contains("tvekit_verification_seconds_count 9"))
            var wrongMethod = URLRequest(url: url.appendingPathComponent("verify"))
            wrongMethod.httpMethod = "GET"
            #expect(
                ((try await URLSession.shared.data(for: wrongMethod).1) as? HTTPURLResponse)?.statusCode == (transport == .nio ? 405 : 404))
        }
    }
}

extension VerificationServiceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "the real Adobe token verifies through the service with the recovered 1024-bit key, once, with its fields",
        arguments: Transport.allCases)
    func realAdobeToken(transport: Transport) async throws {
        let real = Self.repository.appendingPathComponent("TestVectors/media-token/real")
        let token = try String(contentsOf: real.appendingPathComponent("token-A.txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try RSAPublicKey(
            encodedKeyOrCertificate: Data(contentsOf: real.appendingPathComponent("adobe-2015-2017-public-key.pem")),
            allowing1024BitKeys: true)
        #expect(throws: MediaTokenError.invalidConfiguration()) { try VerificationService(trustedKeys: [key], requestorIDs: ["MML"]) }
        let service = try VerificationService(
            trustedKeys: [key], requestorIDs: ["MML"], clock: FixedMediaTokenClock(milliseconds: 1_489_621_300_000),
            allowing1024BitKeys: true)
        let run: (@Sendable (URL) async throws -> Void) async throws -> Void = { body in
            switch transport {
            case .hummingbird: try await withRunningService(service, body)
            case .nio: try await withRunningNIOService(service, body)
            }
        }
        try await run { url in
            let body = try JSONSerialization.data(withJSONObject: [
                "token": Data(token.utf8).base64EncodedString(), "requestor": "MML", "resource": "truTV",
            ])
            let (status, first) = try await post(url, body)
            #expect(status == 200)
            #expect(first["result"] as? String == "VALID_TOKEN")
            #expect(first["sessionGUID"] as? String == "a6c1d2fa9725d7857b6a9d3aa9195040")
            #expect(first["issueTime"] as? Int == 1_489_621_246_000)
            #expect(first["issueTimeText"] as? String == "2017-03-15 16:40:46 -0700")
            let (_, again) = try await post(url, try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "MML"]))
            #expect(again["result"] as? String == "TOKEN_REPLAYED")
        }
    }

    @Test("a request for a plain channel accepts a token whose resourceID is an MRSS document of that channel")
    func mrssResource() async throws {
        let service = try VerificationService(
            trustedKeys: [Self.key.publicKey], requestorIDs: ["tvekit-test"],
            clock: FixedMediaTokenClock(milliseconds: Self.now))
        // The item title in CDATA: the token's own CDATA must split its "]]>" (the nested split of real tokens).
        let mrss = #"<rss version="2.0"><channel><title>TNT</title><item><title><![CDATA[Ep <1>]]></title></item></channel></rss>"#
        let token = try MediaTokenIssuer(privateKey: Self.key, clock: FixedMediaTokenClock(milliseconds: Self.now))
            .issue(requestorID: "tvekit-test", resourceID: mrss, mvpdId: "TestMVPD").serialized
        try await withRunningNIOService(service) { url in
            let (_, other) = try await post(
                url, try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "tvekit-test", "resource": "CNN"]))
            #expect(other["result"] as? String == "INVALID_RESOURCE_ID")
            let (_, valid) = try await post(
                url, try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "tvekit-test", "resource": "TNT"]))
            #expect(valid["result"] as? String == "VALID_TOKEN")
            #expect(valid["resourceID"] as? String == mrss)
        }
    }
}

@Suite("Request log")
struct RequestLogTests {
    @Test("rejectsLogForging: one line per request, control characters in the path replaced, nothing but method, path, status, time")
    func rejectsLogForging() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        let log = RequestLog(output: handle)
        let service = try VerificationService(trustedKeys: [VerificationServiceTests.key.publicKey], requestorIDs: ["r"])
        try await withRunningServer(service.router(log: log)) { url in
            _ = try await URLSession.shared.data(from: url.appendingPathComponent("health"))
            _ = try await URLSession.shared.data(from: try #require(URL(string: url.absoluteString + "/x%0AFAKE%20200")))
        }
        log.flush()
        try handle.close()
        let lines = String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("GET /health 200 ") == true)
        #expect(lines.last?.contains("FAKE") == true && lines.last?.hasPrefix("GET /x") == true)
    }

    @Test("rejectsLogForging (direct): control bytes replaced, a long path cut at 256 bytes on a character boundary, numbers exact")
    func lineFormat() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let log = RequestLog(output: handle)
        log.record(method: "POST", path: "/a\nGET /b\r\u{7F}", status: 200, microseconds: 0)
        log.record(method: "GET", path: "/" + String(repeating: "é", count: 200), status: 404, microseconds: Int.max)
        log.record(method: "GET", path: "", status: 503, microseconds: -12)
        log.flush()
        try handle.close()
        let lines = String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines[0] == "POST /a?GET /b?? 200 0us")
        // "/" and 127 two-byte characters fill 255 bytes: the 128th would straddle the limit and is left out whole.
        #expect(lines[1] == "GET /" + String(repeating: "é", count: 127) + " 404 \(Int.max)us")
        #expect(lines[2] == "GET  503 -12us")
    }
}
