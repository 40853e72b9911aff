import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVEPassAPIv2
#if canImport(Glibc)
    import Glibc
#endif

/// The address the throttle and the attempt limits count by, computed once per request by
/// ``ClientAddressMiddleware`` into the request context (``ClientAddressRequestContext/clientAddress``).
enum ClientAddress {
    /// The address of the request being handled by REST API v2's generated code, which sees no request context: the
    /// v2 route group copies the context's address here for the gate (``V2Gate``).
    @TaskLocal static var current: String?

    /// The key of an address text: IPv4 as it is, IPv6 by its first 64 bits, anything else cut to 64 characters.
    static func key(_ text: String) -> String {
        if text.contains(":") {
            var bytes = [UInt8](repeating: 0, count: 16)
            if inet_pton(AF_INET6, text, &bytes) == 1 {
                return "v6:" + bytes.prefix(8).map { String(format: "%02x", $0) }.joined() + "::/64"
            }
        }
        return String(text.prefix(64))
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    static func isAddress(_ text: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &bytes) == 1 || inet_pton(AF_INET6, text, &bytes) == 1
    }

    /// The address of a request: the context's, or the peer's when the route runs outside the provider's group.
    static func of(_ context: some RequestContext) -> String {
        if let address = (context as? any ClientAddressRequestContext)?.clientAddress { return address }
        if let current { return current }
        return ((context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress).map(key) ?? "unknown"
    }
}

/// Sets ``ClientAddressRequestContext/clientAddress`` for the rest of the request: the last `X-Forwarded-For` address
/// when the service provider sits behind a proxy it runs (``ServiceProviderConfiguration/trustsForwardedFor``: the
/// proxy appends the address it saw, and the entries before it are the client's to write); the first one on a REST API
/// v2 call whose access token belongs to a server-to-server application (its back end names the device it calls for);
/// else the peer's. A forwarded value that is not an IP address is not used.
struct ClientAddressMiddleware<Context: ClientAddressRequestContext>: RouterMiddleware {
    let trustsForwardedFor: Bool
    /// Whether an `Authorization` value is the access token of a server-to-server application.
    let isServerToServer: @Sendable (String?) -> Bool
    static var forwardedFor: HTTPField.Name? { HTTPField.Name("X-Forwarded-For") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let entries =
            Self.forwardedFor.flatMap { request.headers[$0] }?.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        var forwarded: String?
        if trustsForwardedFor {
            // A proxy of ours appends the address it saw: the last entry is the one no client could write.
            forwarded = entries.last
        } else if request.uri.path.hasPrefix(PassAPIv2.pathPrefix + "/"), isServerToServer(request.headers[.authorization]) {
            // A back end of ours names the device it calls for: REST API v2 only, where the server-to-server form is.
            forwarded = entries.first
        }
        var context = context
        context.clientAddress = ClientAddress.key(
            forwarded.flatMap { ClientAddress.isAddress($0) ? $0 : nil } ?? context.remoteAddress?.ipAddress ?? "unknown")
        return try await next(request, context)
    }
}
