/// One answer of the ``VerificationService``, whatever transport carries it: an HTTP status, a content type and a body.
public struct VerificationAnswer: Sendable, Hashable {
    /// The HTTP status code.
    public let status: Int
    /// The `Content-Type` value: `application/json`, `application/x-ndjson` for a JSON-lines batch, `text/plain` for
    /// `/health` and `/metrics`.
    public let contentType: String
    /// The response body.
    public let body: String
    /// For `POST /verify`: the result code (`VALID_TOKEN`, …) or nil for a bad request.
    public let result: String?

    /// An answer with an HTTP status, a content type, a body and, for `POST /verify`, its result code.
    public init(status: Int, contentType: String, body: String, result: String?) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.result = result
    }

    static let tooLarge = VerificationAnswer(
        status: 413, contentType: "application/json",
        body: #"{"error":"bodyTooLarge","reason":"the body is over \#(VerificationService.maximumBodyBytes) bytes"}"#, result: nil)

    static let health = VerificationAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: "ok", result: nil)

    static let methodNotAllowed = VerificationAnswer(
        status: 405, contentType: "application/json",
        body: #"{"error":"methodNotAllowed","reason":"wrong method for this endpoint"}"#, result: nil)

    static func badRequest(_ body: String) -> VerificationAnswer {
        VerificationAnswer(status: 400, contentType: "application/json", body: body, result: nil)
    }
}
