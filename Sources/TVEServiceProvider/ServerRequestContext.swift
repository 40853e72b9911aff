import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVECrypto
import TVETokens

/// A request context that knows the peer's address, the client's address the service provider counts by (for the
/// throttle and the attempt limits), and its connection (so that a client too slow to send its body can be cut off),
/// otherwise Hummingbird's basic one.
public struct ServerRequestContext: ClientAddressRequestContext, ConnectionRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public let connection: (any Channel)?
    /// The address the service provider counts this request by (set by its middleware; see ``ClientAddressRequestContext``).
    public var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connection = source.channel
    }
}

/// A request context that carries the address the service provider counts a request by: the peer's address, or the
/// device's `X-Forwarded-For` address when the caller is a proxy the service provider trusts or the back end of a
/// server-to-server application (``ServiceProviderConfiguration/serverToServerApplications``); IPv6 by its /64. The
/// service provider's first middleware sets it; the throttle, the attempt limits and the v2 gate read it.
public protocol ClientAddressRequestContext: RemoteAddressRequestContext {
    /// The address, once the service provider's middleware has set it.
    var clientAddress: String? { get set }
}

/// A request context that can close its connection.
public protocol ConnectionRequestContext: RequestContext {
    /// The request's connection, when the context knows it.
    var connection: (any Channel)? { get }
}
