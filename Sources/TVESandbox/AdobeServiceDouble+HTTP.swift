import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVEAccessEnabler
import TVEServiceProvider

extension AdobeServiceDouble {
    /// The largest request body the loopback server reads.
    static let maximumBodyBytes = 2 << 20

    /// Serves the double on loopback (a free port) while `body` runs with its base URL, for another process (`tvekit
    /// client`) or a browser. `/activate/REF30/done`, the page a second screen may be sent back to, says the viewer is
    /// signed in.
    public func run<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .delete] {
            router.on("**", method: method) { request, _ -> Response in try await self.respond(request) }
        }
        return try await LocalServer.run(router, body)
    }

    private func respond(_ request: Request) async throws -> Response {
        let path = request.uri.path
        if path == "/activate/\(Self.requestor)/done" {
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "<h1>You are signed in</h1><p>Return to your TV.</p>")))
        }
        let bytes = try await request.body.collect(upTo: Self.maximumBodyBytes)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let url = URL(string: Self.baseURL.absoluteString + request.uri.description) ?? Self.baseURL
        let answer = answer(
            EntitlementHTTPRequest(
                method: request.method.rawValue, url: url, headers: headers,
                body: bytes.readableBytes == 0 ? nil : Data(bytes.readableBytesView)))
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return Response(
            status: .init(code: answer.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
