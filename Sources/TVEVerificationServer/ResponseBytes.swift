import NIOCore
import NIOHTTP1
import TVEVerification

/// An answer as the bytes of an HTTP/1.x response, written straight into one buffer: the server's answers carry nothing
/// of the request's but its version, so they need no `HTTPHeaders`, no encoder and no header validation. The keep-alive
/// `/health` answer, the most frequent, is encoded once.
enum ResponseBytes {
    /// `GET /health`'s answer.
    static let healthAnswer = VerificationAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: "ok", result: nil)

    /// `HTTP/1.1 200 OK` with `ok`, kept alive: written as is (a buffer shared by every connection, never copied).
    static let health: ByteBuffer = {
        var buffer = ByteBuffer()
        write(healthAnswer, version: .http1_1, includeBody: true, close: false, challenge: false, into: &buffer)
        return buffer
    }()

    /// The same for `HEAD /health`.
    static let healthHead: ByteBuffer = {
        var buffer = ByteBuffer()
        write(healthAnswer, version: .http1_1, includeBody: false, close: false, challenge: false, into: &buffer)
        return buffer
    }()

    /// 401 for a protected route without the bearer secret (sent with a `Bearer` challenge).
    static let unauthorized = VerificationAnswer(
        status: 401, contentType: "application/json",
        body: #"{"error":"unauthorized","reason":"this endpoint needs Authorization: Bearer with the service's secret"}"#, result: nil)

    /// 413 for a body over the limit on a route other than `/verify` (whose 413 the service counts).
    static let tooLarge = VerificationAnswer(
        status: 413, contentType: "application/json",
        body: #"{"error":"bodyTooLarge","reason":"the body is over \#(VerificationService.maximumBodyBytes) bytes"}"#, result: nil)

    /// 400 for bytes the ``HTTPRequestReader`` refused (what NIO's `HTTPServerProtocolErrorHandler` answers), then close.
    static let badRequest = ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")

    /// 501 for a request body in a transfer coding other than `chunked`, then close.
    static let notImplemented = ByteBuffer(string: "HTTP/1.1 501 Not Implemented\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")

    /// Writes `answer` as a response of `version` (its body only when `includeBody`: not for `HEAD`).
    static func write(
        _ answer: VerificationAnswer, version: HTTPVersion, includeBody: Bool, close: Bool, challenge: Bool,
        into buffer: inout ByteBuffer
    ) {
        let length = answer.body.utf8.count
        buffer.reserveCapacity(minimumWritableBytes: 128 + answer.contentType.utf8.count + (includeBody ? length : 0))
        buffer.writeStaticString("HTTP/")
        writeDecimal(version.major, into: &buffer)
        buffer.writeInteger(UInt8(ascii: "."))
        writeDecimal(version.minor, into: &buffer)
        buffer.writeInteger(UInt8(ascii: " "))
        writeDecimal(answer.status, into: &buffer)
        buffer.writeInteger(UInt8(ascii: " "))
        buffer.writeString(HTTPResponseStatus(statusCode: answer.status).reasonPhrase)
        buffer.writeStaticString("\r\nContent-Type: ")
        buffer.writeString(answer.contentType)
        buffer.writeStaticString("\r\nContent-Length: ")
        writeDecimal(length, into: &buffer)
        if challenge { buffer.writeStaticString("\r\nWWW-Authenticate: Bearer") }
        if close { buffer.writeStaticString("\r\nConnection: close") }
        buffer.writeStaticString("\r\n\r\n")
        if includeBody { buffer.writeString(answer.body) }
    }

    /// `value` in decimal digits (a small string: no allocation).
    static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeString(String(value))
    }
}
