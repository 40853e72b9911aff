import NIOCore
import NIOHTTP1

/// The server's HTTP/1.1 request reader: the bytes of a connection in, request parts out (a head, its body in slices of
/// the bytes read, its end). It replaces NIO's `HTTPRequestDecoder` on this server only, because that decoder (llhttp,
/// its callbacks, an `HTTPHeaders` of strings per request, `ByteToMessageHandler`) was about a fifth of nginx's whole
/// request in CPU time, and this server needs five header fields of a head. It reads RFC 9112's grammar strictly and
/// refuses, with a ``Failure`` (400, or 501 for a transfer coding it does not know), what request smuggling is made of:
/// a line ending in a bare LF or a bare CR, a folded field line (obs-fold), white space before a field's colon, a
/// `Content-Length` that is not digits or comes twice, `Transfer-Encoding` beside `Content-Length` or in an HTTP/1.0
/// request, a chunk size that is not hex or over 4 GiB, a chunk not followed by CRLF, an HTTP/1.1 request without
/// exactly one `Host`. Limits: a head of at most ``Limits/maximumHeadBytes`` (80 KiB, NIO's own limit) and
/// ``Limits/maximumHeaderCount`` field lines, a chunk-size line of 1 KiB, trailers of 16 KiB (read and dropped). It
/// scans each byte of a head once, however the head is split across reads, and never copies a body.
package struct HTTPRequestReader: Sendable {
    /// The reader's limits.
    package struct Limits: Sendable, Hashable {
        /// The largest request head (request line and field lines), in bytes.
        package var maximumHeadBytes = 80 * 1024
        /// The most field lines in a head.
        package var maximumHeaderCount = 128
        /// The longest chunk-size line (with its extensions), in bytes.
        package var maximumChunkLineBytes = 1024
        /// The largest trailer section of a chunked body, in bytes (trailers are read and dropped).
        package var maximumTrailerBytes = 16 * 1024

        package init() {}
    }

    /// What a request's head says, of what this server uses.
    package struct Head: Sendable, Equatable {
        package var method: HTTPMethod
        /// The request target as sent (a path and a query, for this server).
        package var target: String
        package var version: HTTPVersion
        /// The connection stays open after the answer (HTTP/1.1 without `Connection: close`, or HTTP/1.0 with
        /// `Connection: keep-alive`).
        package var keepAlive: Bool
        /// The declared `Content-Length` (nil for none, or a chunked body).
        package var contentLength: Int?
        /// The body is chunked.
        package var chunked: Bool
        /// The `Authorization` field's value, when there is one.
        package var authorization: String?

        package init(
            method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, keepAlive: Bool = true, contentLength: Int? = nil,
            chunked: Bool = false, authorization: String? = nil
        ) {
            self.method = method
            self.target = target
            self.version = version
            self.keepAlive = keepAlive
            self.contentLength = contentLength
            self.chunked = chunked
            self.authorization = authorization
        }
    }

    /// One part of a request, in order: its head, the bytes of its body (none, one or several slices), its end.
    package enum Part: Sendable, Equatable {
        case head(Head)
        case body(ByteBuffer)
        case end
    }

    /// Why the bytes are not a request this reader accepts; the connection is answered 400 (or 501) and closed.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// 400 Bad Request, or 501 Not Implemented for a transfer coding other than `chunked`.
        package let status: Int
        /// What was wrong and where (never the bytes themselves).
        package let reason: String

        static func bad(_ reason: String) -> Failure { Failure(status: 400, reason: reason) }

        package var description: String { "\(status): \(reason)" }
    }

    enum State: Sendable, Hashable {
        /// Reading a head; `scanned` bytes of it were checked for its end already.
        case head(scanned: Int)
        case body(remaining: Int)
        case chunkLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(read: Int)
        /// A failure was thrown: everything else is dropped.
        case failed
    }

    package let limits: Limits
    var state = State.head(scanned: 0)
    private var buffer: ByteBuffer?

    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received, to be read by ``next()``.
    package mutating func feed(_ bytes: ByteBuffer) {
        if case .failed = state { return }
        guard var kept = buffer.take(), kept.readableBytes > 0 else {
            buffer = bytes
            return
        }
        var bytes = bytes
        if kept.readerIndex > 4096 { kept.discardReadBytes() }
        kept.writeBuffer(&bytes)
        buffer = kept
    }

    /// The next part of the request, nil when more bytes are needed; throws when they are not a request this reader
    /// accepts (and drops everything from then on).
    package mutating func next() throws(Failure) -> Part? {
        guard var bytes = buffer.take() else {
            // Nothing buffered: only the end of a request without a body comes without bytes.
            if case .body(remaining: 0) = state {
                state = .head(scanned: 0)
                return .end
            }
            return nil
        }
        defer { if case .failed = state {} else { buffer = bytes } }
        do {
            return try step(&bytes)
        } catch {
            state = .failed
            throw error
        }
    }

    private mutating func step(_ bytes: inout ByteBuffer) throws(Failure) -> Part? {
        switch state {
        case .failed:
            return nil
        case .head(let scanned):
            return try readHead(&bytes, scanned: scanned)
        case .body(let remaining):
            if remaining == 0 {
                state = .head(scanned: 0)
                return .end
            }
            guard bytes.readableBytes > 0, let slice = bytes.readSlice(length: min(remaining, bytes.readableBytes)) else { return nil }
            state = .body(remaining: remaining - slice.readableBytes)
            return .body(slice)
        case .chunkLine:
            guard let size = try readChunkLine(&bytes) else { return nil }
            state = size == 0 ? .trailers(read: 0) : .chunkData(remaining: size)
            return try step(&bytes)
        case .chunkData(let remaining):
            guard bytes.readableBytes > 0, let slice = bytes.readSlice(length: min(remaining, bytes.readableBytes)) else { return nil }
            state = slice.readableBytes == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - slice.readableBytes)
            return .body(slice)
        case .chunkDataEnd:
            guard bytes.readableBytes >= 2 else { return nil }
            guard bytes.readInteger(as: UInt16.self) == 0x0D0A else { throw .bad("a chunk's data is not followed by CRLF") }
            state = .chunkLine
            return try step(&bytes)
        case .trailers(let read):
            return try readTrailers(&bytes, read: read)
        }
    }

    // MARK: The head

    private mutating func readHead(_ bytes: inout ByteBuffer, scanned: Int) throws(Failure) -> Part? {
        // Empty lines before a request line are ignored (RFC 9112 §2.2), the CRLF some clients send after a body.
        var scanned = scanned
        // A head begins with a method, never with CRLF: whenever the bytes do, the CRLF is such an empty line.
        while bytes.readableBytes >= 2, bytes.getInteger(at: bytes.readerIndex, as: UInt16.self) == 0x0D0A {
            bytes.moveReaderIndex(forwardBy: 2)
            scanned = 0
        }
        let limit = limits.maximumHeadBytes
        let end: Int? = try bytes.withUnsafeReadableBytes { (raw) throws(Failure) -> Int? in
            let found = try Self.endOfHead(raw, from: scanned, limit: limit)
            scanned = min(raw.count, limit)
            return found
        }
        guard let end else {
            if bytes.readableBytes > limit { throw .bad("the request head is over \(limit) bytes") }
            state = .head(scanned: scanned)
            return nil
        }
        let head = try bytes.withUnsafeReadableBytes { (raw) throws(Failure) -> Head in
            try Self.parseHead(UnsafeRawBufferPointer(rebasing: raw[..<end]), limits: limits)
        }
        bytes.moveReaderIndex(forwardBy: end)
        if head.chunked {
            state = .chunkLine
        } else {
            state = .body(remaining: head.contentLength ?? 0)
        }
        return .head(head)
    }

    /// The offset just past the empty line that ends the head, nil when it has not come yet; checks that every line
    /// ends in CRLF. Bytes before `from` were checked already.
    private static func endOfHead(_ raw: UnsafeRawBufferPointer, from: Int, limit: Int) throws(Failure) -> Int? {
        let stop = min(raw.count, limit)
        // The last byte checked again: a CR that ended the previous bytes is checked against the LF that must follow it.
        var index = max(from - 1, 0)
        while index < stop {
            let byte = raw[index]
            if byte == 0x0A {
                guard index > 0, raw[index - 1] == 0x0D else { throw .bad("a line of the head ends in a bare LF") }
                if index >= 3, raw[index - 2] == 0x0A { return index + 1 }
            } else if byte == 0x0D, index + 1 < raw.count, raw[index + 1] != 0x0A {
                throw .bad("a bare CR in the head")
            }
            index += 1
        }
        return nil
    }

    /// Parses a whole head (every line ends in CRLF, the last line is empty).
    private static func parseHead(_ raw: UnsafeRawBufferPointer, limits: Limits) throws(Failure) -> Head {
        // The request line: method SP request-target SP HTTP-version CRLF (after empty lines split across reads).
        var index = 0
        while index + 1 < raw.count, raw[index] == 0x0D, raw[index + 1] == 0x0A { index += 2 }
        while index < raw.count, isTokenByte(raw[index]) { index += 1 }
        guard index > 0, index <= 32, index < raw.count, raw[index] == 0x20 else { throw .bad("the request line's method") }
        let method = Self.method(UnsafeRawBufferPointer(rebasing: raw[..<index]))
        index += 1
        let targetStart = index
        while index < raw.count, raw[index] > 0x20, raw[index] < 0x7F { index += 1 }
        guard index > targetStart, index < raw.count, raw[index] == 0x20 else { throw .bad("the request line's target") }
        let target = String(decoding: UnsafeRawBufferPointer(rebasing: raw[targetStart..<index]), as: UTF8.self)
        index += 1
        guard index + 10 <= raw.count, raw[index + 8] == 0x0D, matches(raw, at: index, "HTTP/1.") else {
            throw .bad("the request line's version")
        }
        let version: HTTPVersion
        switch raw[index + 7] {
        case UInt8(ascii: "1"): version = .http1_1
        case UInt8(ascii: "0"): version = .http1_0
        default: throw .bad("the request line's version (HTTP/1.0 and HTTP/1.1 only)")
        }
        index += 10
        var fields = Fields()
        var count = 0
        // Field lines, up to the empty line.
        while index < raw.count, raw[index] != 0x0D {
            count += 1
            guard count <= limits.maximumHeaderCount else { throw .bad("more than \(limits.maximumHeaderCount) header fields") }
            guard raw[index] != 0x20, raw[index] != 0x09 else { throw .bad("a folded header line (obs-fold)") }
            let nameStart = index
            while index < raw.count, isTokenByte(raw[index]) { index += 1 }
            guard index > nameStart, index < raw.count, raw[index] == UInt8(ascii: ":") else {
                throw .bad("header field \(count): its name (a token, then a colon with no space before it)")
            }
            let name = nameStart..<index
            index += 1
            while index < raw.count, raw[index] == 0x20 || raw[index] == 0x09 { index += 1 }
            let valueStart = index
            while index < raw.count, raw[index] != 0x0D {
                let byte = raw[index]
                guard byte >= 0x20 || byte == 0x09, byte != 0x7F else { throw .bad("header field \(count): a control byte in its value") }
                index += 1
            }
            var valueEnd = index
            while valueEnd > valueStart, raw[valueEnd - 1] == 0x20 || raw[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            try fields.take(
                name: UnsafeRawBufferPointer(rebasing: raw[name]), value: UnsafeRawBufferPointer(rebasing: raw[valueStart..<valueEnd]))
            index += 2  // CRLF (checked by endOfHead)
        }
        return try fields.head(method: method, target: target, version: version)
    }

    /// The five fields this server reads; the others are checked for syntax and dropped.
    private struct Fields {
        var hosts = 0
        var contentLength: Int?
        var transferEncoding: String?
        var close = false
        var keepAlive = false
        var authorization: String?

        mutating func take(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Failure) {
            switch name.count {
            case 4 where HTTPRequestReader.equalsLowercased(name, "host"):
                hosts += 1
            case 14 where HTTPRequestReader.equalsLowercased(name, "content-length"):
                guard contentLength == nil else { throw .bad("two Content-Length fields") }
                guard value.count > 0, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw .bad("Content-Length is not a number of at most 18 digits")
                }
                contentLength = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            case 17 where HTTPRequestReader.equalsLowercased(name, "transfer-encoding"):
                guard transferEncoding == nil else { throw .bad("two Transfer-Encoding fields") }
                transferEncoding = String(decoding: value, as: UTF8.self)
            case 10 where HTTPRequestReader.equalsLowercased(name, "connection"):
                var start = 0
                while start <= value.count {
                    let comma = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.count
                    var (first, last) = (start, comma)
                    while first < last, value[first] == 0x20 || value[first] == 0x09 { first += 1 }
                    while last > first, value[last - 1] == 0x20 || value[last - 1] == 0x09 { last -= 1 }
                    let word = UnsafeRawBufferPointer(rebasing: value[first..<last])
                    if word.count == 5, HTTPRequestReader.equalsLowercased(word, "close") { close = true }
                    if word.count == 10, HTTPRequestReader.equalsLowercased(word, "keep-alive") { keepAlive = true }
                    start = comma + 1
                }
            case 13 where HTTPRequestReader.equalsLowercased(name, "authorization"):
                guard authorization == nil else { throw .bad("two Authorization fields") }
                authorization = String(decoding: value, as: UTF8.self)
            default:
                break
            }
        }

        func head(method: HTTPMethod, target: String, version: HTTPVersion) throws(Failure) -> Head {
            if version == .http1_1, hosts != 1 { throw .bad("an HTTP/1.1 request needs exactly one Host field") }
            var chunked = false
            if let transferEncoding {
                guard version == .http1_1 else { throw .bad("Transfer-Encoding in an HTTP/1.0 request") }
                guard contentLength == nil else { throw .bad("both Transfer-Encoding and Content-Length") }
                guard transferEncoding.lowercased() == "chunked" else {
                    throw Failure(status: 501, reason: "a transfer coding other than chunked")
                }
                chunked = true
            }
            let keptAlive = version == .http1_1 ? !close : keepAlive && !close
            return Head(
                method: method, target: target, version: version, keepAlive: keptAlive, contentLength: contentLength, chunked: chunked,
                authorization: authorization)
        }
    }
}
