import NIOCore
// Hummingbird's HTTP parts (HTTPRequestPart), from swift-nio-extras, which Hummingbird depends on.
import NIOHTTPTypes

/// Closes a connection whose request head is not whole `timeout` after its first bytes arrived: a client that sends a
/// head a byte at a time would otherwise hold the connection as long as it likes, since no part of the request reaches
/// the server until its head is whole. ``LocalServer/http1(idleTimeout:headTimeout:)`` puts one on every connection.
///
/// It sits after Hummingbird's HTTP decoding, so it sees a head only once whole; the bytes of a head in progress show as
/// a read that brings no part. The deadline starts at the end of the first such read while no request is being read,
/// and a whole head cancels it. A read that ends a request is not counted (the decoder may keep the start of the next
/// head, or nothing): the next read starts the deadline then. A connection that sends nothing is the idle timeout's.
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    /// A head arrived and its request's end has not.
    private var readingRequest = false
    /// The read in progress brought a request's end.
    private var requestEndedInThisRead = false
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        case .end:
            readingRequest = false
            requestEndedInThisRead = true
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !readingRequest, !requestEndedInThisRead, deadline == nil {
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { context.close(promise: nil) }
        }
        requestEndedInThisRead = false
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension RequestHeadDeadlineHandler: Sendable {}
