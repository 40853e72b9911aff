import Foundation
import TVECrypto
import TVETestSupport
import TVETokens
import TVEVerification
import Testing

@Suite("Verification service (no transport)")
struct VerificationServiceTests {
    static let now: Int64 = 1_767_225_600_000

    func answer(_ service: VerificationService, _ method: String, _ path: String, _ body: String = "") -> VerificationAnswer {
        Array(body.utf8).withUnsafeBytes { service.answer(method: method, path: path, body: $0) }
    }

    @Test("POST /verify: VALID_TOKEN then TOKEN_REPLAYED; the routes, methods and metrics without a server")
    func answers() throws {
        let key = Fixtures.leafKey
        let clock = FixedMediaTokenClock(milliseconds: Self.now)
        let service = try VerificationService(trustedKeys: [key.publicKey], requestorIDs: ["r"], clock: clock)
        let token = try MediaTokenIssuer(privateKey: key, clock: clock).issue(requestorID: "r", resourceID: "res", mvpdId: "M").serialized
        let body = #"{"token":"\#(token)","requestor":"r","resource":"res"}"#
        let first = answer(service, "POST", "/verify", body)
        #expect(first.status == 200 && first.result == "VALID_TOKEN" && first.contentType == "application/json")
        #expect(answer(service, "POST", "/verify", body).result == "TOKEN_REPLAYED")
        #expect(answer(service, "POST", "/verify", #"{"token":"x","requestor":"other"}"#).status == 400)
        #expect(answer(service, "POST", "/verify", #"{"token":"x","requestor":"r","resource":1}"#).status == 400)
        #expect(answer(service, "GET", "/verify").status == 405)
        #expect(answer(service, "GET", "/health").body == "ok")
        #expect(answer(service, "GET", "/nope").status == 404)
        #expect(service.answerBodyTooLarge().status == 413)
        let metrics = answer(service, "GET", "/metrics").body
        #expect(metrics.contains(#"tvekit_verifications_total{result="VALID_TOKEN"} 1"#))
        #expect(metrics.contains(#"tvekit_verifications_total{result="TOKEN_REPLAYED"} 1"#))
        #expect(metrics.contains(#"tvekit_verifications_total{result="BAD_REQUEST"} 3"#))
        #expect(metrics.contains("tvekit_verification_seconds_count 5"))
    }

    @Test("a service without requestors is refused at configuration")
    func noRequestor() {
        #expect(throws: MediaTokenError.invalidConfiguration()) {
            try VerificationService(trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: [])
        }
    }

    @Test("rejectsLogForging: control characters in a logged path are replaced, so one request is one line")
    func rejectsLogForging() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        let log = RequestLog(output: handle)
        log.record(method: "GET", path: "/x\nFAKE 200\r", status: 404, microseconds: 3)
        log.flush()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text == "GET /x?FAKE 200? 404 3us\n")
    }

    @Test("rejectsLogForging: extreme numbers, a long method and a long path of control bytes each stay on one bounded line")
    func logLineBounds() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        let log = RequestLog(output: handle)
        let method = String(repeating: "M", count: 300)
        log.record(method: method, path: String(repeating: "\n", count: 1000), status: Int.min, microseconds: Int.min)
        log.record(method: "GET", path: "/", status: Int.max, microseconds: 0)
        log.flush()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text == "\(method) \(String(repeating: "?", count: 256)) \(Int.min) \(Int.min)us\nGET / \(Int.max) 0us\n")
    }
}
