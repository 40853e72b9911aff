import NIOCore
import NIOPosix

/// The floor of an HTTP/1.1 server on SwiftNIO, as `make fleet-bench` measures it beside nginx and `tvekit serve`: one
/// event loop, one handler after the socket, as the verification server has; it finds the end of each request head
/// (`CRLF CRLF`; GET requests only, no body), writes a fixed 200 and flushes once per read. No parsing, no timers, no
/// log, no state: whatever the verification server costs above this is its own. Usage: nio-floor PORT (prints
/// `listening` once bound; stops on SIGTERM or SIGINT).
final class Floor: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
    private var pending: ByteBuffer?
    private var unflushed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if var kept = pending.take() {
            kept.writeBuffer(&buffer)
            buffer = kept
        }
        while let end = Self.endOfHead(buffer) {
            buffer.moveReaderIndex(forwardBy: end)
            context.write(wrapOutboundOut(Self.answer), promise: nil)
            unflushed = true
        }
        if buffer.readableBytes > 0 { pending = buffer }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
    }

    /// The offset just past the first `CRLF CRLF`, if any.
    static func endOfHead(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            var index = 3
            while index < bytes.count {
                if bytes[index] == 10, bytes[index - 1] == 13, bytes[index - 2] == 10, bytes[index - 3] == 13 { return index + 1 }
                index += 1
            }
            return nil
        }
    }
}

let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 0
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 16)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Floor()) }
    }
    .bind(host: "127.0.0.1", port: port).get()
print("listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)")
try await channel.closeFuture.get()
