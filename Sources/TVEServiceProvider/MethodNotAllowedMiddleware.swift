import HTTPTypes
import Hummingbird
import TVEPassAPI
import TVEPassAPIv2

/// Answers 405 Method Not Allowed, with `Allow` listing the path's methods, to a request whose path is a route of the
/// router but whose method is not one of that route's (Hummingbird's router answers 404 to both). A path that matches no
/// route keeps its 404. ``ServiceProvider/addRoutes(to:)`` adds it to the router last, with the routes the router then
/// has (REST API v1, v2 and the pages); Hummingbird runs every router middleware before its 404, whenever it was added.
///
/// The route that names a path is found as Hummingbird's trie finds it: segment by segment, a literal segment before a
/// parameter, a parameter before a wildcard.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each path pattern of the router, with its methods.
    let routes: [(path: RouterPath, methods: [HTTPRequest.Method])]
    let enhancedErrors: Bool

    init(routes: [Router<Context>.RouteDescription], enhancedErrors: Bool) {
        var byPath: [(path: RouterPath, methods: [HTTPRequest.Method])] = []
        for route in routes {
            if let index = byPath.firstIndex(where: { $0.path == route.path }) {
                byPath[index].methods.append(route.method)
            } else {
                byPath.append((route.path, [route.method]))
            }
        }
        self.routes = byPath
        self.enhancedErrors = enhancedErrors
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            // The router's own 404 (a handler's 404 names its route): is the path a route of another method?
            guard let allowed = allowedMethods(path: request.uri.path) else { throw error }
            let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            let v2 = request.uri.path.hasPrefix(PassAPIv2.pathPrefix + "/")
            var response = ServiceProviderError(
                status: 405, code: "method_not_allowed", message: "Method Not Allowed",
                details: "this path takes \(names), not \(request.method.rawValue.prefix(32))", action: .none
            ).response(enhanced: enhancedErrors || v2)
            response.headers[.allow] = names
            SecurityHeadersMiddleware<Context>.addHeaders(to: &response)
            return response
        }
    }

    /// The methods of the route that `path` names, or nil when it names none.
    func allowedMethods(path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var best: (rank: [Int], methods: [HTTPRequest.Method])?
        for route in routes {
            guard let rank = Self.rank(route.path, segments) else { continue }
            if let current = best, !rank.lexicographicallyPrecedes(current.rank) { continue }
            best = (rank, route.methods)
        }
        return best?.methods
    }

    /// How `pattern` matches `segments`, segment by segment (0 a literal, 1 a parameter or a partial match, 2 a
    /// wildcard, 3 the rest of the path): the lowest rank is the route Hummingbird picks; nil when it does not match.
    static func rank(_ pattern: RouterPath, _ segments: [Substring]) -> [Int]? {
        var rank: [Int] = []
        for (index, element) in pattern.components.enumerated() {
            if element == .recursiveWildcard { return rank + [3] }
            guard index < segments.count, element ~= segments[index] else { return nil }
            rank.append(element == segments[index] ? 0 : element == .wildcard ? 2 : 1)
        }
        return rank.count == segments.count ? rank : nil
    }
}
