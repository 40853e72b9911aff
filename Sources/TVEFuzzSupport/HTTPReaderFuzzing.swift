import NIOCore
import TVEVerificationServer

/// The body of the verification server's HTTP/1.1 request-reader fuzzer (`Fuzz/FuzzHTTPReader`), shared with the test
/// suite, which replays its corpus and regressions.
///
/// Invariants, checked on every input: the reader never crashes and reads the same parts, and refuses with the same
/// failure, whether the bytes come at once, one by one, or in pieces of a size the input's first byte chooses (a
/// request smuggled past one split would show as a difference); no body is longer than its head declares; nothing is
/// read after a refusal.
public enum HTTPReaderFuzzing {
    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        let whole = read(bytes, piece: max(bytes.count, 1))
        let piece = Int(bytes.first ?? 0) % 61 + 2
        for other in [read(bytes, piece: 1), read(bytes, piece: piece)] {
            check(other.parts == whole.parts, "the parts differ with the split: \(other.parts.count) against \(whole.parts.count)")
            check(other.failure == whole.failure, "the failure differs with the split: \(String(describing: other.failure))")
        }
        var declared: Int?
        var body = 0
        for part in whole.parts {
            switch part {
            case .head(let head):
                check(!head.target.isEmpty, "an empty target")
                check(!(head.chunked && head.contentLength != nil), "both chunked and a Content-Length")
                (declared, body) = (head.contentLength, 0)
            case .body(let slice):
                body += slice.readableBytes
                if let declared { check(body <= declared, "a body of \(body) bytes over its Content-Length \(declared)") }
            case .end:
                if let declared { check(body == declared, "a body of \(body) bytes where \(declared) were declared") }
            }
        }
    }

    /// The parts (body slices joined) and the failure, with the bytes fed in pieces of `piece`; after a failure, the rest
    /// of the bytes are fed too and must give nothing.
    static func read(_ bytes: [UInt8], piece: Int) -> (parts: [HTTPRequestReader.Part], failure: HTTPRequestReader.Failure?) {
        var reader = HTTPRequestReader()
        var parts: [HTTPRequestReader.Part] = []
        var failure: HTTPRequestReader.Failure?
        for start in stride(from: 0, to: bytes.count, by: piece) {
            reader.feed(ByteBuffer(bytes: bytes[start..<min(start + piece, bytes.count)]))
            do {
                while let part = try reader.next() {
                    check(failure == nil, "a part read after a refusal")
                    if case .body(var more) = part, case .body(var joined)? = parts.last {
                        joined.writeBuffer(&more)
                        parts[parts.count - 1] = .body(joined)
                    } else {
                        parts.append(part)
                    }
                }
            } catch {
                check(failure == nil, "a second refusal")
                failure = error
            }
        }
        return (parts, failure)
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { preconditionFailure("FuzzHTTPReader invariant broken: \(message())") }
    }
}
