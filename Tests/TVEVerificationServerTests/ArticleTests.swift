import Foundation
import Logging
import ServiceLifecycle
import TVECrypto
import TVETestSupport
import TVETokens
import TVEVerification
import TVEVerificationServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of the article "Running the verification service" (TVEVerification's
/// Docs.docc/RunningTheVerificationService.md), run over real HTTP on loopback.
@Suite("Article: running the verification service")
struct RunningTheVerificationServiceArticleTests {
    /// A token for requestor R and resource S, issued now with the fixture key (the tests' Adobe key).
    static func token() throws -> String {
        try MediaTokenIssuer(privateKey: Fixtures.leafKey).issue(requestorID: "R", resourceID: "S", mvpdId: "M").serialized
    }

    /// One request; its status, body and `WWW-Authenticate` header.
    static func send(
        _ url: URL, _ path: String, method: String = "GET", body: String? = nil, authorization: String? = nil
    ) async throws -> (status: Int, body: Data, challenge: String?) {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        if let body { request.httpBody = Data(body.utf8) }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "WWW-Authenticate"))
    }

    @Test("the service and its HTTP server in one ServiceGroup: VALID_TOKEN, then TOKEN_REPLAYED; batches, health, metrics")
    func serviceInAServiceGroup() async throws {
        let adobeKey = Fixtures.leafKey.publicKey
        let logger = Logger(label: "tvekit.verifier")
        let port = 0
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)

        let service = try VerificationService(trustedKeys: [adobeKey], requestorIDs: ["R"])
        let server = VerificationHTTPServer(
            service: service, host: "127.0.0.1", port: port, onBound: { bound.yield($0) })
        let services = ServiceGroup(configuration: .init(services: [server], logger: logger))

        let running = Task {
            defer { bound.finish() }
            try await services.run()
        }
        do {
            var iterator = ports.makeAsyncIterator()
            let listening = try #require(await iterator.next())
            let url = try #require(URL(string: "http://127.0.0.1:\(listening)"))
            let token = try Self.token()
            let body = try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "R", "resource": "S"])
            let (firstStatus, first) = try await post(url, body)
            let (secondStatus, second) = try await post(url, body)
            #expect(firstStatus == 200)
            #expect(first["result"] as? String == "VALID_TOKEN")
            #expect(first["mvpdId"] as? String == "M")
            #expect(first["resourceID"] as? String == "S")
            #expect(secondStatus == 200)
            #expect(second["result"] as? String == "TOKEN_REPLAYED")
            #expect(second["reason"] != nil)

            // A batch: each answer in order, a requestor the service does not verify for answered in its place; 200.
            let fresh = try Self.token()
            let array = #"[{"token":"\#(fresh)","requestor":"R"},{"token":"x","requestor":"other"}]"#
            let batch = try await Self.send(url, "verify", method: "POST", body: array)
            #expect(batch.status == 200)
            let answers = try #require(try JSONSerialization.jsonObject(with: batch.body) as? [[String: Any]])
            #expect(answers.count == 2)
            #expect(answers.first?["result"] as? String == "VALID_TOKEN")
            #expect(answers.last?["error"] as? String == "unknownRequestor")
            // JSON lines answer JSON lines.
            let lines = #"{"token":"\#(fresh)","requestor":"R"}"# + "\n" + #"{"token":"x","requestor":"R"}"#
            let answeredLines = try await Self.send(url, "verify", method: "POST", body: lines)
            let text = String(decoding: answeredLines.body, as: UTF8.self)
            #expect(answeredLines.status == 200)
            #expect(text.split(separator: "\n").count == 2)
            #expect(text.contains("TOKEN_REPLAYED") && text.contains("INVALID_TOKEN_FORMAT"))

            let health = try await Self.send(url, "health")
            #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "ok")
            let metrics = String(decoding: try await Self.send(url, "metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"tvekit_verifications_total{result="VALID_TOKEN"} 2"#))
            #expect(metrics.contains(#"tvekit_verifications_total{result="TOKEN_REPLAYED"} 2"#))
            #expect(metrics.contains("tvekit_verification_seconds"))
        } catch {
            await services.triggerGracefulShutdown()
            try? await running.value
            throw error
        }
        await services.triggerGracefulShutdown()
        try await running.value
    }

    @Test("a server with a bearer secret, timeouts and a request log: 401 without the secret, an answer with it, one line each")
    func bearerSecretTimeoutsAndLog() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-article-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("bearer-secret").path
        try Data("a-shared-secret-of-32-characters\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let logFile = directory.appendingPathComponent("requests.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: logFile)
        let service = try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["R"])
        let port = 0
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: "tvekit.verifier")

        let secret = try BearerSecret(contentsOfFile: secretFile)  // one line, 16 bytes or more
        let log = RequestLog(output: output)  // standard error by default
        let server = VerificationHTTPServer(
            service: service, port: port, timeouts: .init(idle: .seconds(30), body: .seconds(5), shutdown: .seconds(20)),
            bearerSecret: secret, log: log, logger: logger, onBound: { bound.yield($0) })
        // The log is a Service too: first, so that it stops last and writes every line.
        let services = ServiceGroup(configuration: .init(services: [log, server], logger: logger))
        let running = Task {
            defer { bound.finish() }
            try await services.run()
        }
        let token = try Self.token()
        do {
            var iterator = ports.makeAsyncIterator()
            let listening = try #require(await iterator.next())
            let url = try #require(URL(string: "http://127.0.0.1:\(listening)"))
            let body = #"{"token": "\#(token)", "requestor": "R", "resource": "S"}"#
            let anonymous = try await Self.send(url, "verify", method: "POST", body: body)
            let authorized = try await Self.send(
                url, "verify", method: "POST", body: body, authorization: "Bearer a-shared-secret-of-32-characters")
            let metrics = try await Self.send(url, "metrics")
            let health = try await Self.send(url, "health")
            #expect(anonymous.status == 401 && anonymous.challenge == "Bearer")
            #expect(authorized.status == 200)
            let answer = try #require(try JSONSerialization.jsonObject(with: authorized.body) as? [String: Any])
            #expect(answer["result"] as? String == "VALID_TOKEN")
            #expect(metrics.status == 401)
            #expect(health.status == 200)
        } catch {
            await services.triggerGracefulShutdown()
            try? await running.value
            throw error
        }
        await services.triggerGracefulShutdown()
        try await running.value
        try output.close()
        let lines = String(decoding: try Data(contentsOf: logFile), as: UTF8.self).split(separator: "\n")
        // Method, path, status and microseconds: four fields, nothing else.
        #expect(!lines.isEmpty && lines.allSatisfy { $0.split(separator: " ").count == 4 && $0.hasSuffix("us") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("POST /verify 401 ") })
        #expect(lines.contains { $0.hasPrefix("POST /verify 200 ") })
        #expect(lines.contains { $0.hasPrefix("GET /metrics 401 ") })
        #expect(lines.contains { $0.hasPrefix("GET /health 200 ") })
        // Never a secret or a token.
        #expect(!lines.contains { $0.contains("a-shared-secret") || $0.contains(token.prefix(16)) })
    }
}
