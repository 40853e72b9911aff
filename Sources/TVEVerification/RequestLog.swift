import Foundation
import TVECrypto

/// One line per request — method, path, status, microseconds; never headers or bodies — written by a background
/// flusher instead of on the request's path. swift-log's default stream handler wrote each line synchronously and
/// cost a quarter of a verification request.
public final class RequestLog: Sendable {
    private let buffer = Locked<[UInt8]>([])
    private let output: FileHandle
    /// Lines beyond this many buffered bytes are dropped (and counted) rather than growing memory without bound.
    static let maximumBufferedBytes = 4 << 20
    private let dropped = Locked<Int>(0)

    public init(output: FileHandle = .standardError) {
        self.output = output
    }

    /// Buffers one line. `path` is the route's pattern or the request's path: control characters are replaced.
    public func record(method: String, path: String, status: Int, microseconds: Int) {
        var line = method
        line += " "
        // The path is the client's: control characters are replaced so that no line can forge another.
        line.unicodeScalars.append(contentsOf: path.unicodeScalars.prefix(256).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 })
        line += " \(status) \(microseconds)us\n"
        let bytes = Array(line.utf8)
        let kept = buffer.withLock { buffer -> Bool in
            guard buffer.count + bytes.count <= Self.maximumBufferedBytes else { return false }
            buffer += bytes
            return true
        }
        if !kept { dropped.withLock { $0 += 1 } }
    }

    /// Writes what is buffered.
    public func flush() {
        let pending = buffer.withLock { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        let lost = dropped.withLock { count -> Int in
            defer { count = 0 }
            return count
        }
        if !pending.isEmpty { output.write(Data(pending)) }
        if lost > 0 { output.write(Data("(\(lost) log lines dropped: the log could not keep up)\n".utf8)) }
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
