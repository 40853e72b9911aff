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
        var method = method
        var path = path
        let kept = method.withUTF8 { method in
            path.withUTF8 { path in append(method: method, path: path, status: status, microseconds: microseconds) }
        }
        if !kept { dropped.withLock { $0 += 1 } }
    }

    /// The line is made on the stack, then copied into the shared buffer at once: the lock is held for one copy.
    private func append(method: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>, status: Int, microseconds: Int) -> Bool {
        let pathEnd = Self.pathEnd(path)
        // The method, the path, three separators, two numbers of at most 21 bytes (a sign and 20 digits), "us\n".
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: method.count + pathEnd + 48) { line in
            var count = 0
            for byte in method { Self.put(byte, in: line, at: &count) }
            Self.put(UInt8(ascii: " "), in: line, at: &count)
            for byte in path[..<pathEnd] { Self.put(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte, in: line, at: &count) }
            Self.put(UInt8(ascii: " "), in: line, at: &count)
            Self.putDecimal(status, in: line, at: &count)
            Self.put(UInt8(ascii: " "), in: line, at: &count)
            Self.putDecimal(microseconds, in: line, at: &count)
            for byte in "us\n".utf8 { Self.put(byte, in: line, at: &count) }
            let bytes = UnsafeBufferPointer(rebasing: line[..<count])
            return buffer.withLock { buffer -> Bool in
                guard buffer.count + method.count + min(path.count, 256) + 48 <= Self.maximumBufferedBytes else { return false }
                buffer.append(contentsOf: bytes)
                return true
            }
        }
    }

    /// How much of the client's path is logged: at most 256 bytes, cut at a character boundary. Control characters are
    /// replaced as it is copied, so that no line can forge another (UTF-8 never uses bytes below 0x80 inside a
    /// multi-byte character).
    static func pathEnd(_ path: UnsafeBufferPointer<UInt8>) -> Int {
        var end = min(path.count, 256)
        // Not in the middle of a character: back off over continuation bytes.
        if end < path.count { while end > 0, path[end] & 0xC0 == 0x80 { end -= 1 } }
        return end
    }

    @inline(__always)
    private static func put(_ byte: UInt8, in line: UnsafeMutableBufferPointer<UInt8>, at count: inout Int) {
        line[count] = byte
        count += 1
    }

    /// `value` in decimal digits.
    static func putDecimal(_ value: Int, in line: UnsafeMutableBufferPointer<UInt8>, at count: inout Int) {
        if value < 0 { put(UInt8(ascii: "-"), in: line, at: &count) }
        var magnitude = value.magnitude
        let start = count
        repeat {
            put(UInt8(ascii: "0") + UInt8(magnitude % 10), in: line, at: &count)
            magnitude /= 10
        } while magnitude > 0
        line[start..<count].reverse()
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
