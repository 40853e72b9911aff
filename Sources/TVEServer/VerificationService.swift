import Foundation
import Hummingbird
import TVECrypto
import TVETokens
import TVEJSON
import HTTPTypes

/// The media-token verification web service that Adobe recommends programmers run in front of playback.
///
/// - `POST /verify` with `{"token": ..., "requestor": ..., "resource": ...?}` answers `200` with
///   `{"result": CODE, ...fields}` (fields only for `VALID_TOKEN`), one-time use on. A requestor the service is not
///   configured for, a body that is not that JSON, or one over ``maximumBodyBytes`` is a `400`/`413` with
///   `{"error", "reason"}`: the requestor a token is checked against always comes from configuration.
/// - `GET /health` answers `200 ok`.
/// - `GET /metrics` serves counts per result and a latency histogram in the Prometheus text format.
public struct VerificationService: Sendable {
    /// The largest request body accepted.
    public static let maximumBodyBytes = 128 * 1024

    private let verifiers: [String: MediaTokenVerifier]
    public let metrics: VerificationMetrics

    /// - Parameters:
    ///   - trustedKeys: the keys whose media-token signatures are accepted (Adobe's current and next certificate).
    ///   - requestorIDs: the requestors this service verifies for.
    ///   - replayGuard: one-time use, shared by every requestor; in memory and bounded by default.
    ///   - allowing1024BitKeys: trust RSA keys of 1024 to 2047 bits (Adobe's key of 2015–2017); off by default.
    public init(
        trustedKeys: [RSAPublicKey], requestorIDs: [String], clockSkew: Duration = .zero,
        clock: any MediaTokenClock = SystemMediaTokenClock(),
        replayGuard: any TokenReplayGuard = InMemoryTokenReplayGuard(), allowing1024BitKeys: Bool = false
    ) throws {
        guard !requestorIDs.isEmpty else { throw MediaTokenError.invalidConfiguration(reason: "no requestor ID") }
        var verifiers: [String: MediaTokenVerifier] = [:]
        for requestor in requestorIDs {
            verifiers[requestor] = try MediaTokenVerifier(
                trustedKeys: trustedKeys, requestorID: requestor, clockSkew: clockSkew,
                clock: clock, replayGuard: replayGuard,
                allowing1024BitKeys: allowing1024BitKeys)
        }
        self.verifiers = verifiers
        self.metrics = VerificationMetrics()
    }

    /// An answer, independent of the HTTP server that carries it.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let contentType: String
        let body: String
        /// The metrics label: a result code, or `BAD_REQUEST`.
        let result: String?
    }

    /// Adds the three routes to `router` (the Hummingbird transport; ``VerificationHTTPServer`` is the lean one).
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("verify") { request, _ -> Response in
            let started = ContinuousClock.now
            let answer: Answer
            do {
                let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
                answer = body.withUnsafeReadableBytes { self.verify(body: $0) }
            } catch {
                answer = Self.tooLarge
            }
            self.metrics.record(result: answer.result ?? "BAD_REQUEST", elapsed: ContinuousClock.now - started)
            return Response(
                status: answer.status, headers: [.contentType: answer.contentType],
                body: .init(byteBuffer: ByteBuffer(string: answer.body)))
        }
        router.get("health") { _, _ -> String in "ok" }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: self.metrics.prometheusText())))
        }
    }

    /// A router with the routes and, when `log` is given, one log line per request (method, path, status, time;
    /// never bodies).
    public func router(log: RequestLog? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        if let log { router.middlewares.add(RequestLogMiddleware(log: log)) }
        addRoutes(to: router)
        return router
    }

    static let tooLarge = Answer(
        status: .contentTooLarge, contentType: "application/json",
        body: #"{"error":"bodyTooLarge","reason":"the body is over \#(maximumBodyBytes) bytes"}"#, result: "BAD_REQUEST")

    /// `POST /verify` on a collected body: strict JSON (TVEJSON) in, the report's JSON out.
    func verify(body: UnsafeRawBufferPointer) -> Answer {
        guard body.count <= Self.maximumBodyBytes else { return Self.tooLarge }
        guard case .object(let fields)? = try? JSONValue.parse(body),
            case .string(let token)? = fields["token"], case .string(let requestor)? = fields["requestor"]
        else {
            return Answer(
                status: .badRequest, contentType: "application/json",
                body: #"{"error":"malformedRequest","reason":"the body must be JSON {\"token\", \"requestor\", \"resource\"?}"}"#,
                result: nil)
        }
        let resource: String?
        switch fields["resource"] {
        case nil, .null?: resource = nil
        case .string(let value)?: resource = value
        default:
            return Answer(
                status: .badRequest, contentType: "application/json",
                body: #"{"error":"malformedRequest","reason":"resource must be a string"}"#, result: nil)
        }
        guard let verifier = verifiers[requestor] else {
            return Answer(
                status: .badRequest, contentType: "application/json",
                body: #"{"error":"unknownRequestor","reason":"this service does not verify for that requestor"}"#, result: nil)
        }
        let verification = verifier.verify(token, resourceID: resource)
        return Answer(
            status: .ok, contentType: "application/json", body: MediaTokenVerificationReport(verification).jsonText,
            result: verification.result.rawValue)
    }

    /// Any request, for a transport without a router: `POST /verify`, `GET /health`, `GET /metrics`, else 404/405.
    func answer(method: HTTPRequest.Method, path: Substring, body: UnsafeRawBufferPointer) -> Answer {
        switch path {
        case "/verify":
            guard method == .post else { return Self.methodNotAllowed }
            return verify(body: body)
        case "/health":
            guard method == .get || method == .head else { return Self.methodNotAllowed }
            return Answer(status: .ok, contentType: "text/plain; charset=utf-8", body: "ok", result: nil)
        case "/metrics":
            guard method == .get || method == .head else { return Self.methodNotAllowed }
            return Answer(status: .ok, contentType: "text/plain; version=0.0.4", body: metrics.prometheusText(), result: nil)
        default:
            return Answer(
                status: .notFound, contentType: "application/json", body: #"{"error":"notFound","reason":"no such endpoint"}"#, result: nil)
        }
    }

    static let methodNotAllowed = Answer(
        status: .methodNotAllowed, contentType: "application/json",
        body: #"{"error":"methodNotAllowed","reason":"wrong method for this endpoint"}"#, result: nil)

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Counts per result and a latency histogram, safe to update from every request.
public final class VerificationMetrics: Sendable {
    /// Histogram bucket upper bounds, in seconds.
    static let buckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1]

    private struct State {
        var results: [String: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: VerificationMetrics.buckets.count)
        var count = 0
        var sum = 0.0
    }

    private let state = Locked(State())

    init() {}

    func record(result: String, elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        state.withLock { state in
            state.results[result, default: 0] += 1
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { state.bucketCounts[index] += 1 }
            state.count += 1
            state.sum += seconds
        }
    }

    /// The count of verifications that ended with `result` (a result code or `BAD_REQUEST`).
    public func count(of result: String) -> Int { state.withLock { $0.results[result] ?? 0 } }

    /// The Prometheus text exposition format (version 0.0.4).
    public func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = "# HELP tvekit_verifications_total Media-token verifications by result.\n# TYPE tvekit_verifications_total counter\n"
        for (result, count) in snapshot.results.sorted(by: { $0.key < $1.key }) {
            text += "tvekit_verifications_total{result=\"\(result)\"} \(count)\n"
        }
        text += "# HELP tvekit_verification_seconds Time to answer POST /verify.\n# TYPE tvekit_verification_seconds histogram\n"
        for (index, bound) in Self.buckets.enumerated() {
            text += "tvekit_verification_seconds_bucket{le=\"\(bound)\"} \(snapshot.bucketCounts[index])\n"
        }
        text += "tvekit_verification_seconds_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        text += "tvekit_verification_seconds_sum \(snapshot.sum)\ntvekit_verification_seconds_count \(snapshot.count)\n"
        return text
    }
}
