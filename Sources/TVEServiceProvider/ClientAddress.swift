import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
#if canImport(Glibc)
    import Glibc
#endif

/// The address the throttle and the attempt limits count by, computed once per request by
/// ``ClientAddressMiddleware``: the first `X-Forwarded-For` address when the service provider trusts that header
/// (behind a proxy it runs), else the peer's; an IPv6 address counts by its /64 (one host can hold a whole /64).
enum ClientAddress {
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

    /// The address of a request: the middleware's, or the peer's when the route runs outside the provider's group.
    static func of(_ context: some RequestContext) -> String {
        if let current { return current }
        return ((context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress).map(key) ?? "unknown"
    }
}

/// Sets ``ClientAddress/current`` for the rest of the request.
struct ClientAddressMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let trustsForwardedFor: Bool
    static var forwardedFor: HTTPField.Name? { HTTPField.Name("X-Forwarded-For") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let forwarded =
            trustsForwardedFor
            ? Self.forwardedFor.flatMap { request.headers[$0] }?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
            : nil
        let address = ClientAddress.key(forwarded ?? context.remoteAddress?.ipAddress ?? "unknown")
        return try await ClientAddress.$current.withValue(address) { try await next(request, context) }
    }
}
