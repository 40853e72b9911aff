import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import TVEFuzzSupport
import TVETestSupport
import Testing

@testable import TVEVerificationServer

/// The verification server's own HTTP/1.1 request reader: RFC 9112's grammar read strictly, every form request
/// smuggling takes refused, its limits, its answers the same however the bytes are split, and the same requests as
/// NIO's own decoder for every request it accepts.
@Suite("Verification server: the HTTP/1.1 request reader")
struct HTTPRequestReaderTests {
    /// Everything `text` gives when fed in pieces of `piece` bytes (all at once for 0): the parts, then the failure.
    static func read(_ text: String, piece: Int = 0, limits: HTTPRequestReader.Limits = .init()) -> (
        parts: [HTTPRequestReader.Part], failure: HTTPRequestReader.Failure?
    ) {
        read(Array(text.utf8), piece: piece, limits: limits)
    }

    static func read(_ bytes: [UInt8], piece: Int = 0, limits: HTTPRequestReader.Limits = .init()) -> (
        parts: [HTTPRequestReader.Part], failure: HTTPRequestReader.Failure?
    ) {
        var reader = HTTPRequestReader(limits: limits)
        var parts: [HTTPRequestReader.Part] = []
        let size = piece == 0 ? max(bytes.count, 1) : piece
        for start in stride(from: 0, to: max(bytes.count, 1), by: size) {
            reader.feed(ByteBuffer(bytes: bytes[start..<min(start + size, bytes.count)]))
            do {
                while let part = try reader.next() { parts.append(part) }
            } catch {
                return (parts, error)
            }
        }
        return (merged(parts), nil)
    }

    /// Consecutive body slices joined, so that reads split differently compare equal.
    static func merged(_ parts: [HTTPRequestReader.Part]) -> [HTTPRequestReader.Part] {
        var result: [HTTPRequestReader.Part] = []
        for part in parts {
            if case .body(var more) = part, case .body(var body)? = result.last {
                body.writeBuffer(&more)
                result[result.count - 1] = .body(body)
            } else {
                result.append(part)
            }
        }
        return result
    }

    static func head(_ parts: [HTTPRequestReader.Part]) -> HTTPRequestReader.Head? {
        guard case .head(let head)? = parts.first else { return nil }
        return head
    }

    // MARK: Requests it reads

    @Test("a GET, a POST with its body, and pipelined requests, whatever the split of their bytes")
    func requests() throws {
        let text =
            "GET /health?x=1 HTTP/1.1\r\nHost: a\r\n\r\n"
            + "POST /verify HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nAuthorization: Bearer s\r\n\r\nhello"
            + "GET /metrics HTTP/1.1\r\nhost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n"
        for piece in [0, 1, 2, 3, 7, 64] {
            let (parts, failure) = Self.read(text, piece: piece)
            #expect(failure == nil, "piece \(piece)")
            #expect(
                parts == [
                    .head(.init(method: .GET, target: "/health?x=1")), .end,
                    .head(.init(method: .POST, target: "/verify", contentLength: 5, authorization: "Bearer s")),
                    .body(ByteBuffer(string: "hello")), .end,
                    .head(.init(method: .GET, target: "/metrics", keepAlive: false)), .end,
                ], "piece \(piece)")
        }
    }

    @Test("a chunked body with extensions and trailers is read whole, whatever the split")
    func chunked() throws {
        let text =
            "POST /verify HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\nA \r\n, world!!!\r\n0\r\nX-Trailer: yes\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"
        for piece in [0, 1, 4, 9] {
            let (parts, failure) = Self.read(text, piece: piece)
            #expect(failure == nil, "piece \(piece)")
            #expect(
                parts == [
                    .head(.init(method: .POST, target: "/verify", chunked: true)), .body(ByteBuffer(string: "hello, world!!!")), .end,
                    .head(.init(method: .GET, target: "/")), .end,
                ], "piece \(piece)")
        }
    }

    @Test("HTTP/1.0 closes unless it asks for keep-alive; empty lines before a request line are skipped")
    func versionsAndEmptyLines() {
        #expect(Self.head(Self.read("GET / HTTP/1.0\r\n\r\n").parts)?.keepAlive == false)
        #expect(
            Self.head(Self.read("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").parts)
                == .init(method: .GET, target: "/", version: .http1_0))
        #expect(Self.read("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", piece: 1).parts.count == 2)
        #expect(Self.head(Self.read("DELETE /x HTTP/1.1\r\nHost: a\r\nX: \t\u{e9}t\u{e9} \t\r\n\r\n").parts)?.method == .DELETE)
    }

    @Test("every request NIO's decoder reads, this reader reads the same: method, target, version, keep-alive, body")
    func sameAsNIOsDecoder() throws {
        let requests = [
            "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /health HTTP/1.0\r\n\r\n",
            "HEAD /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            "POST /verify?q=%20 HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"token\":1}",
            "POST /verify HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n",
            "OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            "PUT /x HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, TE\r\nContent-Length: 0\r\n\r\n",
            "GET /x HTTP/1.1\r\nHost: a\r\nX-Empty:\r\nX-Tab:\tv\t\r\n\r\n",
        ]
        for request in requests {
            let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
            try channel.writeInbound(ByteBuffer(string: request))
            var theirs: [HTTPRequestReader.Part] = []
            while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
                switch part {
                case .head(let head):
                    theirs.append(
                        .head(
                            .init(
                                method: head.method, target: head.uri, version: head.version, keepAlive: head.isKeepAlive,
                                contentLength: head.headers.first(name: "content-length").flatMap(Int.init),
                                chunked: head.headers.first(name: "transfer-encoding")?.lowercased() == "chunked",
                                authorization: head.headers.first(name: "authorization"))))
                case .body(let body): theirs.append(.body(body))
                case .end: theirs.append(.end)
                }
            }
            _ = try channel.finish()
            let (ours, failure) = Self.read(request)
            #expect(failure == nil, "\(request.debugDescription)")
            #expect(ours == Self.merged(theirs), "\(request.debugDescription)")
        }
    }

    // MARK: Request smuggling

    static let smuggling: [(name: String, request: String, status: Int)] = [
        ("a bare LF ends a line", "GET / HTTP/1.1\nHost: a\n\n", 400),
        ("a bare LF ends the head", "GET / HTTP/1.1\r\nHost: a\r\n\n", 400),
        ("a bare CR inside a field", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400),
        ("a folded field line (obs-fold)", "GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n c\r\n\r\n", 400),
        ("white space before a colon", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello", 400),
        (
            "Content-Length and Transfer-Encoding",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        (
            "Transfer-Encoding and Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", 400
        ),
        ("two different Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
        ("two equal Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400),
        ("a Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello", 400),
        ("a signed Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400),
        ("a negative Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("a hexadecimal Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello", 400),
        ("a Content-Length of 19 digits", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9999999999999999999\r\n\r\n", 400),
        ("an empty Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400),
        ("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (
            "two Transfer-Encoding fields",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        ("chunked twice in one field", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 501),
        ("a coding before chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
        ("a coding like chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 501),
        ("a chunk size that is not hex", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("a chunk size with 0x", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 400),
        ("a negative chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n\r\n", 400),
        ("a chunk over 4 GiB", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100000000\r\n", 400),
        ("a chunk longer than its size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n", 400),
        (
            "a chunk-size line ending in a bare LF",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", 400
        ),
        (
            "a control byte in a chunk extension",
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;\u{1}\r\nhello\r\n0\r\n\r\n", 400
        ),
        ("a trailer line ending in a bare LF", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: 1\n\r\n", 400),
        ("an HTTP/1.1 request without Host", "GET / HTTP/1.1\r\n\r\n", 400),
        ("an HTTP/1.1 request with two Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("HTTP/2.0 in a request line", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 400),
        ("a lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        ("white space after the version", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
        ("two spaces in the request line", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("a space in the target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("a control byte in the target", "GET /a\u{1}b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("a method that is not a token", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("a NUL in a field value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),
        ("a field without a colon", "GET / HTTP/1.1\r\nHost: a\r\nX-No-Colon\r\n\r\n", 400),
        ("a field with an empty name", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", 400),
        ("two Authorization fields", "GET /metrics HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n", 400),
    ]

    @Test(
        "request smuggling: every ambiguous framing and malformed line is refused, however the bytes are split",
        arguments: smuggling.indices)
    func requestSmugglingIsRefused(_ index: Int) {
        let (name, request, status) = Self.smuggling[index]
        for piece in [0, 1, 5] {
            let failure = Self.read(request, piece: piece).failure
            #expect(failure?.status == status, "\(name) (piece \(piece)): \(String(describing: failure))")
        }
    }

    @Test("request smuggling: after a refusal the reader drops everything, so no request hidden behind it is read")
    func nothingIsReadAfterARefusal() throws {
        var reader = HTTPRequestReader()
        reader.feed(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nG"))
        #expect(throws: HTTPRequestReader.Failure.self) { try reader.next() }
        reader.feed(ByteBuffer(string: "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(try reader.next() == nil)
    }

    // MARK: Limits

    @Test("oversized heads: over 80 KiB, more than 128 field lines, a long chunk line and long trailers are refused")
    func oversizedHeadsAreRefused() {
        let long = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 80 * 1024) + "\r\n\r\n"
        #expect(Self.read(long).failure?.reason == "the request head is over 81920 bytes")
        #expect(Self.read(String(long.prefix(81 * 1024)), piece: 1000).failure?.status == 400)  // never ends: refused at the limit
        let many = "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X: y\r\n", count: 128) + "\r\n"
        #expect(Self.read(many).failure?.reason == "more than 128 header fields")
        let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(Self.read(chunked + "5;" + String(repeating: "e", count: 1100) + "\r\nhello\r\n0\r\n\r\n").failure?.status == 400)
        let trailers = String(repeating: "T: " + String(repeating: "t", count: 1000) + "\r\n", count: 17)
        #expect(Self.read(chunked + "0\r\n" + trailers + "\r\n", piece: 700).failure?.reason == "trailers over 16384 bytes")
        var limits = HTTPRequestReader.Limits()
        limits.maximumHeadBytes = 40
        #expect(Self.read("GET / HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits).failure == nil)
        #expect(Self.read("GET /longer HTTP/1.1\r\nHost: a\r\nX: yyyy\r\n\r\n", limits: limits).failure?.status == 400)
    }

    @Test("a body is handed out as it comes, in slices of what was read, and a request without a body ends at once")
    func bodiesAreNotBuffered() throws {
        var reader = HTTPRequestReader()
        reader.feed(ByteBuffer(string: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"))
        #expect(try reader.next() == .head(.init(method: .POST, target: "/", contentLength: 10)))
        #expect(try reader.next() == .body(ByteBuffer(string: "abc")))
        #expect(try reader.next() == nil)
        reader.feed(ByteBuffer(string: "defghij"))
        #expect(try reader.next() == .body(ByteBuffer(string: "defghij")))
        #expect(try reader.next() == .end)
        reader.feed(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(try reader.next() == .head(.init(method: .GET, target: "/")))
        #expect(try reader.next() == .end)
        #expect(try reader.next() == nil)
    }
}

/// The reader's fuzzer corpus and regressions, replayed through its fuzz body (`Fuzz/FuzzHTTPReader`).
@Suite("Verification server: the HTTP/1.1 reader's fuzz inputs")
struct HTTPReaderFuzzReplayTests {
    static let folders = ["Fuzz/Regressions/FuzzHTTPReader", "Fuzz/Corpus/FuzzHTTPReader"]

    static let files: [String] = folders.flatMap { folder -> [String] in
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    @Test("the corpus is there")
    func corpusIsThere() {
        #expect(Self.files.count >= 17)
    }

    @Test("an input runs through the fuzz body without breaking an invariant", arguments: files)
    func replay(file: String) throws {
        let data = try Data(contentsOf: Fixtures.repository.appendingPathComponent(file))
        data.withUnsafeBytes { HTTPReaderFuzzing.run($0) }
    }
}
