import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVECrypto
import TVETokens

/// A request context that knows the peer's address (for the throttle), otherwise Hummingbird's basic one.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
