import Foundation
import TVECrypto
import TVEJSON
import TVETokens

/// The media-token verification web service that Adobe recommends programmers run in front of playback, without a
/// transport: it answers requests given as a method, a path and a body. `TVEVerificationServer` carries it on a lean
/// SwiftNIO HTTP/1.1 server; `TVEServiceProvider` mounts it on a Hummingbird router next to the service provider.
///
/// - `POST /verify` with `{"token": ..., "requestor": ..., "resource": ...?}` answers `200` with
///   `{"result": CODE, ...fields}` (fields only for `VALID_TOKEN`), one-time use on; `503` with
///   `{"result": "REPLAY_CHECK_FAILED", …}` when the replay store cannot answer (fail closed). A requestor the service is
///   not configured for, a body that is not that JSON, or one over ``maximumBodyBytes`` is a `400`/`413` with
///   `{"error", "reason"}`: the requestor a token is checked against always comes from configuration.
/// - **Batches**: a JSON array of such objects answers a JSON array of the answers, in order; JSON lines (one object
///   per line) answer JSON lines. At most ``maximumBatchCount`` tokens; each answer is what the token would get
///   alone (a malformed item gets `{"error", "reason"}` in its place); the status is `200`. With an asynchronous
///   replay store, a batch takes one round trip to it.
/// - `GET /health` answers `200 ok`.
/// - `GET /metrics` serves ``VerificationMetrics`` in the Prometheus text format.
///
/// One-time use is kept either in process (a `TokenReplayGuard`: ``answer(method:path:body:)-(_,_,UnsafeRawBufferPointer)``
/// answers at once, on the caller's thread) or by a store that needs the network (an `AsyncTokenReplayGuard` such as
/// the PostgreSQL guard of a fleet: use the `async` ``answer(method:path:body:)-(_,_,[UInt8])``).
public struct VerificationService: Sendable {
    /// The largest request body accepted (a batch included).
    public static let maximumBodyBytes = 1 << 20
    /// The most tokens in one batch.
    public static let maximumBatchCount = 256

    private let verifiers: [String: MediaTokenVerifier]
    /// The verifiers with their requestor's UTF-8, for requests read as bytes.
    private let verifiersByBytes: [(requestor: [UInt8], verifier: MediaTokenVerifier)]
    /// The asynchronous replay store, when one keeps one-time use (else each verifier's own guard does).
    private let replayStore: (any AsyncTokenReplayGuard)?
    /// Where each `POST /verify` is counted and timed; `GET /metrics` serves it.
    public let metrics: VerificationMetrics

    /// A service whose one-time use is kept in process.
    /// - Parameters:
    ///   - trustedKeys: the keys whose media-token signatures are accepted (Adobe's current and next certificate).
    ///   - requestorIDs: the requestors this service verifies for.
    ///   - clockSkew: the clock difference tolerated with the token's issuer, 0 by default; at most one day.
    ///   - clock: the verifiers' clock; the system clock by default.
    ///   - replayGuard: one-time use, shared by every requestor; in memory and bounded by default.
    ///   - allowing1024BitKeys: trust RSA keys of 1024 to 2047 bits (Adobe's key of 2015–2017); off by default.
    ///   - metrics: where each `POST /verify` is counted and timed; a registry of its own by default.
    /// - Throws: `MediaTokenError` when there is no requestor or a key is not acceptable.
    public init(
        trustedKeys: [RSAPublicKey], requestorIDs: [String], clockSkew: Duration = .zero,
        clock: any MediaTokenClock = SystemMediaTokenClock(),
        replayGuard: any TokenReplayGuard = InMemoryTokenReplayGuard(), allowing1024BitKeys: Bool = false,
        metrics: VerificationMetrics = VerificationMetrics()
    ) throws {
        try self.init(
            trustedKeys: trustedKeys, requestorIDs: requestorIDs, clockSkew: clockSkew, clock: clock, syncGuard: replayGuard,
            replayStore: nil, allowing1024BitKeys: allowing1024BitKeys, metrics: metrics)
    }

    /// A service whose one-time use is kept by an asynchronous store (a fleet's shared database). Answer with the
    /// `async` ``answer(method:path:body:)-(_,_,[UInt8])``.
    /// - Parameters:
    ///   - trustedKeys: the keys whose media-token signatures are accepted (Adobe's current and next certificate).
    ///   - requestorIDs: the requestors this service verifies for.
    ///   - clockSkew: the clock difference tolerated with the token's issuer, 0 by default; at most one day.
    ///   - clock: the verifiers' clock; the system clock by default.
    ///   - replayStore: the store that keeps one-time use, shared by every requestor and every instance using it.
    ///   - allowing1024BitKeys: trust RSA keys of 1024 to 2047 bits (Adobe's key of 2015–2017); off by default.
    ///   - metrics: where each `POST /verify` is counted and timed; a registry of its own by default.
    /// - Throws: `MediaTokenError` when there is no requestor or a key is not acceptable.
    public init(
        trustedKeys: [RSAPublicKey], requestorIDs: [String], clockSkew: Duration = .zero,
        clock: any MediaTokenClock = SystemMediaTokenClock(), replayStore: any AsyncTokenReplayGuard,
        allowing1024BitKeys: Bool = false, metrics: VerificationMetrics = VerificationMetrics()
    ) throws {
        try self.init(
            trustedKeys: trustedKeys, requestorIDs: requestorIDs, clockSkew: clockSkew, clock: clock, syncGuard: nil,
            replayStore: replayStore, allowing1024BitKeys: allowing1024BitKeys, metrics: metrics)
    }

    private init(
        trustedKeys: [RSAPublicKey], requestorIDs: [String], clockSkew: Duration, clock: any MediaTokenClock,
        syncGuard: (any TokenReplayGuard)?, replayStore: (any AsyncTokenReplayGuard)?, allowing1024BitKeys: Bool,
        metrics: VerificationMetrics
    ) throws {
        guard !requestorIDs.isEmpty else { throw MediaTokenError.invalidConfiguration(reason: "no requestor ID") }
        var verifiers: [String: MediaTokenVerifier] = [:]
        for requestor in requestorIDs {
            verifiers[requestor] = try MediaTokenVerifier(
                trustedKeys: trustedKeys, requestorID: requestor, clockSkew: clockSkew, clock: clock, replayGuard: syncGuard,
                allowing1024BitKeys: allowing1024BitKeys)
        }
        self.verifiers = verifiers
        verifiersByBytes = verifiers.map { (Array($0.key.utf8), $0.value) }
        self.replayStore = replayStore
        self.metrics = metrics
    }

    /// Whether ``answer(method:path:body:)-(_,_,UnsafeRawBufferPointer)`` answers `POST /verify` without waiting (one-time use in process).
    public var answersSynchronously: Bool { replayStore == nil }

    /// Answers one request at once: `POST /verify`, `GET|HEAD /health`, `GET|HEAD /metrics`, else 404 or 405. A
    /// `POST /verify` is counted in ``metrics`` with its time. `path` is the request target without its query. With an
    /// asynchronous replay store, `POST /verify` answers 503 `REPLAY_CHECK_FAILED` here (fail closed): use the `async`
    /// overload. A transport that routes the request itself calls ``route(method:path:)`` and ``verify(_:)-(UnsafeRawBufferPointer)``
    /// instead.
    public func answer(method: String, path: some StringProtocol, body: UnsafeRawBufferPointer) -> VerificationAnswer {
        switch Self.route(method: method, path: path) {
        case .verify: verify(body)
        case let route: answer(route)
        }
    }

    /// Answers one request, waiting for the replay store when it is asynchronous (one round trip per request, a batch
    /// included). Otherwise as the synchronous overload.
    public func answer(method: String, path: some StringProtocol, body: [UInt8]) async -> VerificationAnswer {
        switch Self.route(method: method, path: path) {
        case .verify: await verify(body)
        case let route: answer(route)
        }
    }

    // MARK: Typed entry points

    /// What a request asks for, from its method and path alone: a transport routes a request once, from its head,
    /// then calls the entry point of that route.
    public enum Route: Sendable, Hashable {
        /// `POST /verify`: ``verify(_:)-(UnsafeRawBufferPointer)`` (in process), ``verify(_:)-([UInt8])`` (with an
        /// asynchronous store), or ``answerBodyTooLarge()``.
        case verify
        /// `GET|HEAD /health`.
        case health
        /// `GET|HEAD /metrics`.
        case metrics
        /// A known path with another method: 405.
        case methodNotAllowed
        /// No such path: 404.
        case notFound
    }

    /// The route of a request; `path` is the request target without its query.
    public static func route(method: some StringProtocol, path: some StringProtocol) -> Route {
        switch path {
        case "/verify": method == "POST" ? .verify : .methodNotAllowed
        case "/health": method == "GET" || method == "HEAD" ? .health : .methodNotAllowed
        case "/metrics": method == "GET" || method == "HEAD" ? .metrics : .methodNotAllowed
        default: .notFound
        }
    }

    /// The answer of a route that has no body to read: `/health`, `/metrics`, 405 and 404 (``Route/verify`` answers
    /// as a `/verify` without a body would: 400).
    public func answer(_ route: Route) -> VerificationAnswer {
        switch route {
        case .verify: verify(UnsafeRawBufferPointer(start: nil, count: 0))
        case .health: .health
        case .metrics:
            VerificationAnswer(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.prometheusText(), result: nil)
        case .methodNotAllowed: .methodNotAllowed
        case .notFound: Self.notFound
        }
    }

    /// `POST /verify` with `body` (one token, or a batch: the body's shape decides, once), answered at once with the
    /// in-process replay guard; counted in ``metrics`` with its time. With an asynchronous replay store this answers
    /// 503 `REPLAY_CHECK_FAILED` (fail closed): use ``verify(_:)-([UInt8])``.
    public func verify(_ body: UnsafeRawBufferPointer) -> VerificationAnswer {
        guard body.count <= Self.maximumBodyBytes else { return answerBodyTooLarge() }
        let started = ContinuousClock.now
        let answer: VerificationAnswer
        if replayStore == nil {
            let request = VerificationRequestBody(body, maximumItems: Self.maximumBatchCount)
            let verifications = (items(of: request) ?? []).map { item -> MediaTokenVerification? in
                switch check(item, in: body) {
                case .decided(let verification)?: verification
                case .awaitingReplayCheck?: Self.storeNeeded
                case nil: nil
                }
            }
            answer = respond(to: request, verifications)
        } else {
            metrics.count(MediaTokenVerification.Result.replayCheckFailed.rawValue)
            answer = VerificationAnswer(
                status: 503, contentType: "application/json",
                body: MediaTokenVerificationReport(Self.storeNeeded).jsonText,
                result: MediaTokenVerification.Result.replayCheckFailed.rawValue)
        }
        metrics.recordLatency(ContinuousClock.now - started)
        return answer
    }

    /// `POST /verify` with `body` (one token, or a batch), waiting for the replay store when it is asynchronous (one
    /// round trip per request, a batch included); with one-time use in process, as ``verify(_:)-(UnsafeRawBufferPointer)``.
    public func verify(_ body: [UInt8]) async -> VerificationAnswer {
        guard let replayStore else { return body.withUnsafeBytes { verify($0) } }
        guard body.count <= Self.maximumBodyBytes else { return answerBodyTooLarge() }
        let started = ContinuousClock.now
        // Every check but one-time use first; then one call to the store for the whole request.
        let (request, pending) = body.withUnsafeBytes { bytes in
            let request = VerificationRequestBody(bytes, maximumItems: Self.maximumBatchCount)
            return (request, (items(of: request) ?? []).map { check($0, in: bytes) })
        }
        var checks: [(index: Int, check: PendingMediaTokenVerification.ReplayCheck, key: TokenReplayKey)] = []
        var finished: [Int: MediaTokenVerification] = [:]
        for (index, entry) in pending.enumerated() {
            guard case .awaitingReplayCheck(let check)? = entry else { continue }
            if let key = check.key {
                checks.append((index, check, key))
            } else {
                finished[index] = check.complete(with: .unavailable(reason: "the token's replay key cannot be computed"))
            }
        }
        if !checks.isEmpty {
            let decisions: [ReplayDecision]
            if checks.count == 1, let only = checks.first {
                decisions = [await replayStore.recordFirstUse(of: only.key, expiresAt: only.check.expiresAt, now: only.check.now)]
            } else {
                decisions = await replayStore.recordFirstUses(
                    of: checks.map { ($0.key, $0.check.expiresAt) }, now: checks.map(\.check.now).max() ?? 0)
            }
            for (entry, decision) in zip(checks, decisions) { finished[entry.index] = entry.check.complete(with: decision) }
        }
        let verifications = pending.indices.map { index -> MediaTokenVerification? in
            switch pending[index] {
            case .decided(let verification)?: verification
            case .awaitingReplayCheck?: finished[index] ?? Self.storeNeeded
            case nil: nil
            }
        }
        let answer = respond(to: request, verifications)
        metrics.recordLatency(ContinuousClock.now - started)
        return answer
    }

    /// The answer to a `POST /verify` whose body was over ``maximumBodyBytes`` (a transport that stops reading it),
    /// counted in ``metrics``.
    public func answerBodyTooLarge() -> VerificationAnswer {
        metrics.count(nil)
        metrics.recordLatency(.zero)
        return .tooLarge
    }

    // MARK: Verification

    static let storeNeeded = MediaTokenVerification.failedReplayCheck(
        "this service keeps one-time use in an asynchronous store: answer with the async answer(method:path:body:)")

    /// The items of a body, or nil when it is not a request.
    private func items(of request: VerificationRequestBody) -> [VerificationRequestBody.Item]? {
        switch request {
        case .single(let item): [item]
        case .array(let items), .lines(let items): items
        case .refused: nil
        }
    }

    /// Every check of one item but the asynchronous store's (the in-process guard, when there is one, included).
    private func check(_ item: VerificationRequestBody.Item, in body: UnsafeRawBufferPointer) -> PendingMediaTokenVerification? {
        guard case .request(let token, let requestor, let resource) = item, let verifier = verifier(for: requestor, in: body) else {
            return nil
        }
        // The token's bytes are read where they lie in the body: no copy.
        return token.withBytes(in: body) { bytes in
            if replayStore == nil { return .decided(verifier.verify(bytes, resourceID: resource)) }
            return verifier.verifyAwaitingReplayCheck(bytes: bytes, resourceID: resource)
        }
    }

    /// The verifier of a requestor named in a request (byte-for-byte, as the verifier compares IDs).
    private func verifier(for requestor: VerificationRequestBody.Text, in body: UnsafeRawBufferPointer) -> MediaTokenVerifier? {
        switch requestor {
        case .string(let name): return verifiers[name]
        case .bytes(let range):
            let name = UnsafeRawBufferPointer(rebasing: body[range])
            return verifiersByBytes.first { $0.requestor.elementsEqual(name) }?.verifier
        }
    }

    /// The answer to a body, given the verification of each of its items (nil for an item that is not a request).
    private func respond(to request: VerificationRequestBody, _ verifications: [MediaTokenVerification?]) -> VerificationAnswer {
        guard let items = items(of: request) else {
            metrics.count(nil)
            if case .refused(let reason) = request { return .badRequest(Self.errorJSON("malformedRequest", reason)) }
            return .badRequest(Self.errorJSON("malformedRequest", VerificationRequestBody.shape))
        }
        // One string for the whole answer, its size guessed from the first items (about 400 bytes per valid token).
        var output = ""
        output.reserveCapacity(items.count * 420 + 2)
        let separator = request.isLines ? "\n" : ","
        if case .array = request { output += "[" }
        var status = 200
        var result: String?
        for (index, item) in items.enumerated() {
            if index > 0 { output += separator }
            guard let verification = verifications[index] else {
                metrics.count(nil)
                if case .malformed(let reason) = item {
                    output += Self.errorJSON("malformedRequest", reason)
                } else {
                    output += Self.errorJSON("unknownRequestor", "this service does not verify for that requestor")
                }
                status = 400
                continue
            }
            metrics.count(verification.result.rawValue)
            if verification.result == .replayCheckFailed { status = 503 } else if status != 503 { status = 200 }
            result = verification.result.rawValue
            MediaTokenVerificationReport(verification).write(to: &output)
        }
        switch request {
        case .single:
            return VerificationAnswer(status: status, contentType: "application/json", body: output, result: result)
        case .lines:
            output += "\n"
            return VerificationAnswer(status: 200, contentType: "application/x-ndjson", body: output, result: nil)
        default:
            output += "]"
            return VerificationAnswer(status: 200, contentType: "application/json", body: output, result: nil)
        }
    }

    static let notFound = VerificationAnswer(
        status: 404, contentType: "application/json", body: errorJSON("notFound", "no such endpoint"), result: nil)

    static func errorJSON(_ error: String, _ reason: String) -> String {
        JSONValue.object(["error": .string(error), "reason": .string(reason)]).jsonText
    }
}
