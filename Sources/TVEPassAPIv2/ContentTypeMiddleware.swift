import HTTPTypes
import OpenAPIRuntime

extension PassAPIv2 {
    /// A server middleware that keeps the generated server stubs alive on a `Content-Type` whose parameter names repeat
    /// ignoring case (`application/x-www-form-urlencoded; charset=a; CHARSET=b`).
    ///
    /// swift-openapi-runtime (1.13.4, and its main branch of May 2026) matches a request's content type with
    /// `Dictionary(uniqueKeysWithValues:)` over the lower-cased parameter names, which traps on such a value: one request
    /// to any v2 operation with a body would end the server's process. Parameter names are case-insensitive (RFC 2045
    /// §5.1), so this middleware keeps the first of the parameters whose names are equal ignoring case, as the runtime itself
    /// does for exact repeats, and passes every value without repeats on unchanged. Put it first in the `middlewares` of
    /// `registerHandlers(on:serverURL:configuration:middlewares:)`. Found by the fuzzer `FuzzV2Requests`.
    public struct ContentTypeMiddleware: ServerMiddleware {
        /// Creates the middleware; it has no settings.
        public init() {}

        public func intercept(
            _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            guard let value = request.headerFields[.contentType], let safe = Self.withoutRepeatedParameters(value) else {
                return try await next(request, body, metadata)
            }
            var request = request
            request.headerFields[.contentType] = safe
            return try await next(request, body, metadata)
        }

        /// `value` without the parameters whose name repeats an earlier one (ignoring case), or nil when none does. The
        /// value is read as the runtime reads it: split at `;`, each part trimmed of white space, and a part is a
        /// parameter when it splits at `=` into exactly two.
        public static func withoutRepeatedParameters(_ value: String) -> String? {
            let parts = value.split(separator: ";").map(trimmed)
            var names: Set<String> = []
            var kept: [Substring] = []
            var dropped = false
            for (index, part) in parts.enumerated() {
                let pieces = part.split(separator: "=")
                if index > 0, pieces.count == 2, !names.insert(pieces[0].lowercased()).inserted {
                    dropped = true
                } else {
                    kept.append(part)
                }
            }
            return dropped ? kept.joined(separator: "; ") : nil
        }

        /// `text` without leading and trailing white space (`Character.isWhitespace`, as the runtime trims).
        static func trimmed(_ text: Substring) -> Substring {
            guard let start = text.firstIndex(where: { !$0.isWhitespace }), let end = text.lastIndex(where: { !$0.isWhitespace }) else {
                return ""
            }
            return text[start...end]
        }
    }
}
