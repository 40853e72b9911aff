import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVECrypto
import TVETokens

/// A request context that knows the peer's address (for the throttle and the attempt limits) and its connection
/// (so that a client too slow to send its body can be cut off), otherwise Hummingbird's basic one.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext, ConnectionRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public let connection: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connection = source.channel
    }
}

/// A request context that can close its connection.
public protocol ConnectionRequestContext: RequestContext {
    /// The request's connection, when the context knows it.
    var connection: (any Channel)? { get }
}
