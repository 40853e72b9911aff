import Foundation
import TVECrypto
import TVEJSON
import TVETokens

/// The media-token verification web service that Adobe recommends programmers run in front of playback, without a
/// transport: it answers requests given as a method, a path and a body. `TVEVerificationServer` carries it on a lean
/// SwiftNIO HTTP/1.1 server; `TVEServiceProvider` mounts it on a Hummingbird router next to the service provider.
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
    /// - Throws: ``MediaTokenError`` when there is no requestor or a key is not acceptable.
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

    /// Answers one request: `POST /verify`, `GET|HEAD /health`, `GET|HEAD /metrics`, else 404 or 405. A `POST /verify`
    /// is counted in ``metrics`` with its time. `path` is the request target without its query.
    public func answer(method: String, path: some StringProtocol, body: UnsafeRawBufferPointer) -> VerificationAnswer {
        switch path {
        case "/verify":
            guard method == "POST" else { return .methodNotAllowed }
            let started = ContinuousClock.now
            let answer = verify(body: body)
            metrics.record(result: answer.result ?? "BAD_REQUEST", elapsed: ContinuousClock.now - started)
            return answer
        case "/health":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return VerificationAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: "ok", result: nil)
        case "/metrics":
            guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
            return VerificationAnswer(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.prometheusText(), result: nil)
        default:
            return VerificationAnswer(
                status: 404, contentType: "application/json", body: #"{"error":"notFound","reason":"no such endpoint"}"#, result: nil)
        }
    }

    /// The answer to a `POST /verify` whose body was over ``maximumBodyBytes`` (a transport that stops reading it),
    /// counted in ``metrics``.
    public func answerBodyTooLarge() -> VerificationAnswer {
        metrics.record(result: "BAD_REQUEST", elapsed: .zero)
        return .tooLarge
    }

    /// `POST /verify` on a collected body: strict JSON (TVEJSON) in, the report's JSON out. Not counted in ``metrics``.
    func verify(body: UnsafeRawBufferPointer) -> VerificationAnswer {
        guard body.count <= Self.maximumBodyBytes else { return .tooLarge }
        guard case .object(let fields)? = try? JSONValue.parse(body),
            case .string(let token)? = fields["token"], case .string(let requestor)? = fields["requestor"]
        else {
            return .badRequest(
                #"{"error":"malformedRequest","reason":"the body must be JSON {\"token\", \"requestor\", \"resource\"?}"}"#)
        }
        let resource: String?
        switch fields["resource"] {
        case nil, .null?: resource = nil
        case .string(let value)?: resource = value
        default: return .badRequest(#"{"error":"malformedRequest","reason":"resource must be a string"}"#)
        }
        guard let verifier = verifiers[requestor] else {
            return .badRequest(#"{"error":"unknownRequestor","reason":"this service does not verify for that requestor"}"#)
        }
        let verification = verifier.verify(token, resourceID: resource)
        return VerificationAnswer(
            status: 200, contentType: "application/json", body: MediaTokenVerificationReport(verification).jsonText,
            result: verification.result.rawValue)
    }
}
