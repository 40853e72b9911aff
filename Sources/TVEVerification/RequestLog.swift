import Foundation
import ServiceLifecycle
import TVEConcurrency
import TVECrypto

/// One line per request — method, path, status, microseconds; never headers or bodies — written by a background
/// flusher instead of on the request's path. swift-log's default stream handler wrote each line synchronously and
/// cost a quarter of a verification request.
///
/// A ServiceLifecycle `Service`: run it in the caller's `ServiceGroup` (first, so that a graceful shutdown stops it
/// last, after the servers that record into it), where it flushes every 100 ms until the shutdown, then once more.
public final class RequestLog: Service, Sendable {
    private let buffer = Locked<[UInt8]>([])
    private let output: FileHandle
    /// Lines beyond this many buffered bytes are dropped (and counted) rather than growing memory without bound.
    static let maximumBufferedBytes = 4 << 20
    private let dropped = Locked<Int>(0)

    /// A log that writes to `output` (standard error by default) only when flushed, by ``flush()`` or
    /// ``runFlusher(every:)``.
    public init(output: FileHandle = .standardError) {
        self.output = output
    }

    /// Buffers one line. `path` is the route's pattern or the request's path: control characters are replaced.
    public func record(method: String, path: String, status: Int, microseconds: Int) {
        // Written byte by byte into the shared buffer: no intermediate string per line.
        var method = method
        var path = path
        let kept = method.withUTF8 { method in
            path.withUTF8 { path in
                buffer.withLock { buffer -> Bool in
                    guard buffer.count + method.count + min(path.count, 256) + 48 <= Self.maximumBufferedBytes else { return false }
                    buffer.append(contentsOf: method)
                    buffer.append(UInt8(ascii: " "))
                    Self.appendPath(path, to: &buffer)
                    buffer.append(UInt8(ascii: " "))
                    Self.appendDecimal(status, to: &buffer)
                    buffer.append(UInt8(ascii: " "))
                    Self.appendDecimal(microseconds, to: &buffer)
                    buffer.append(contentsOf: "us\n".utf8)
                    return true
                }
            }
        }
        if !kept { dropped.withLock { $0 += 1 } }
    }

    /// The client's path, at most 256 bytes (cut at a character boundary), with control characters replaced so that no
    /// line can forge another (UTF-8 never uses bytes below 0x80 inside a multi-byte character).
    static func appendPath(_ path: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        var end = min(path.count, 256)
        // Not in the middle of a character: back off over continuation bytes.
        if end < path.count { while end > 0, path[end] & 0xC0 == 0x80 { end -= 1 } }
        for byte in path[..<end] { buffer.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte) }
    }

    /// `value` in decimal digits.
    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = buffer.count
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        buffer[start...].reverse()
    }

    /// Writes what is buffered.
    public func flush() {
        // The buffered lines are swapped out (the buffer starts again empty, with the capacity it had), not copied.
        let pending = buffer.withLock { buffer -> [UInt8] in
            var taken = [UInt8]()
            taken.reserveCapacity(buffer.capacity)
            swap(&taken, &buffer)
            return taken
        }
        let lost = dropped.withLock { count -> Int in
            defer { count = 0 }
            return count
        }
        if !pending.isEmpty { output.write(Data(pending)) }
        if lost > 0 { output.write(Data("(\(lost) log lines dropped: the log could not keep up)\n".utf8)) }
    }

    /// Flushes every 100 ms until a graceful shutdown or cancellation, then once more.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.runFlusher() }
    }

    /// Flushes every `interval` until the task is cancelled, then once more.
    public func runFlusher(every interval: Duration = .milliseconds(100)) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            flush()
        }
        flush()
    }
}

extension RequestLog {
    /// Whole microseconds since `start`.
    public static func microseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds) * 1_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000_000)
    }
}
