import NIOCore
import NIOHTTP1
import TVEVerification
import Testing

@testable import TVEVerificationServer

/// The connection's state machine fed events, without a socket: every behaviour of a connection (pipelining, body
/// limits, the bearer secret, the three timeouts, the graceful stop) as the actions it answers.
@Suite("Verification server: the connection's state machine, without sockets")
struct ConnectionStateMachineTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func machine(maximumBodyBytes: Int = 100, maximumPendingBytes: Int = 64 * 1024, secret: BearerSecret? = nil)
        -> ConnectionStateMachine
    {
        var limits = ConnectionStateMachine.Limits(
            bearerSecret: secret, idleTimeout: .seconds(10), headTimeout: .seconds(5), bodyTimeout: .seconds(7))
        limits.maximumBodyBytes = maximumBodyBytes
        limits.maximumPendingBytes = maximumPendingBytes
        return ConnectionStateMachine(limits: limits, now: start)
    }

    /// A head as the reader gives it, from the fields a client would send.
    static func head(_ method: HTTPMethod, _ uri: String, _ headers: [(String, String)] = [], version: HTTPVersion = .http1_1)
        -> HTTPRequestReader.Part
    {
        let fields = HTTPHeaders(headers)
        let close = fields[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
        return .head(
            HTTPRequestReader.Head(
                method: method, target: uri, version: version, keepAlive: version == .http1_1 && !close,
                contentLength: fields.first(name: "content-length").flatMap(Int.init),
                chunked: fields.first(name: "transfer-encoding") == "chunked", authorization: fields.first(name: "authorization")))
    }

    static func body(_ text: String) -> HTTPRequestReader.Part { .body(ByteBuffer(string: text)) }

    /// Feeds `part` at `start`.
    static func feed(_ machine: inout ConnectionStateMachine, _ part: HTTPRequestReader.Part) -> ConnectionStateMachine.ReadAction {
        machine.received(part, now: start)
    }

    /// The request and body of an `.answer` action.
    static func answered(_ action: ConnectionStateMachine.ReadAction) -> (ConnectionStateMachine.Request, String?, Bool)? {
        guard case .answer(let request, let body, let tooLarge) = action else { return nil }
        return (request, body.map { String(buffer: $0) }, tooLarge)
    }

    @Test("a request is routed once from its head (query dropped) and answered at its end with its body whole; keep-alive follows it")
    func oneRequest() throws {
        var machine = Self.machine()
        #expect(Self.answered(Self.feed(&machine, Self.head(.POST, "/verify?x=1", [("Content-Length", "9")]))) == nil)
        _ = Self.feed(&machine, Self.body("{\"tok"))
        _ = Self.feed(&machine, Self.body("en\":1}"))
        let (request, body, tooLarge) = try #require(Self.answered(Self.feed(&machine, .end)))
        #expect(request.route == .verify && request.path == "/verify" && request.keepAlive)
        #expect(body == "{\"token\":1}" && !tooLarge)
        let outcome1 = machine.answerReady(keepAlive: true)
        #expect(outcome1 == .keepAlive)
        #expect(Self.answered(Self.feed(&machine, Self.head(.GET, "/health"))) == nil)
        #expect(try #require(Self.answered(Self.feed(&machine, .end))).0.route == .health)
        let outcome2 = machine.answerReady(keepAlive: true)
        #expect(outcome2 == .keepAlive)
        _ = Self.feed(&machine, Self.head(.GET, "/nowhere", [("Connection", "close")]))
        #expect(try #require(Self.answered(Self.feed(&machine, .end))).0.route == .notFound)
        let outcome3 = machine.answerReady(keepAlive: true)
        #expect(outcome3 == .close)
        #expect(Self.answered(Self.feed(&machine, Self.head(.GET, "/health"))) == nil)  // closing: dropped
    }

    @Test(
        "pipelinedRequests: parts that come while an answer waits for the store are kept in order, reads go on, and they are answered after it"
    )
    func pipelinedRequests() throws {
        var machine = Self.machine()
        _ = Self.feed(&machine, Self.head(.POST, "/verify"))
        _ = Self.feed(&machine, Self.body("first"))
        #expect(Self.answered(Self.feed(&machine, .end))?.1 == "first")
        #expect(!machine.holdsReads)  // reading goes on while the answer waits: no epoll_ctl per request
        for part in [Self.head(.GET, "/health"), .end, Self.head(.POST, "/verify"), Self.body("third"), .end] {
            #expect(Self.answered(Self.feed(&machine, part)) == nil)
        }
        #expect(machine.pending.count == 5)
        #expect(machine.pendingBytes == 2 * 128 + "/health".count + "/verify".count + "third".count + 2 * 16)
        #expect(!machine.holdsReads)
        let outcome4 = machine.answerReady(keepAlive: true)
        #expect(outcome4 == .keepAlive)
        #expect(!machine.holdsReads)
        var answers: [(VerificationService.Route, String?)] = []
        for part in machine.takePending() {
            if let (request, body, _) = Self.answered(Self.feed(&machine, part)) {
                answers.append((request.route, body))
                if request.route == .health {
                    let mode = machine.answerReady(keepAlive: true)
                    #expect(mode == .keepAlive)
                }
            }
        }
        #expect(answers.map(\.0) == [.health, .verify] && answers.last?.1 == "third")
        #expect(machine.pendingBytes == 0 && machine.pending.isEmpty)  // the third waits for the store in its turn
    }

    @Test(
        "pipelineFlood: requests pipelined behind an answer that waits are kept up to the byte bound, then reads are held until it is out"
    )
    func pipelineFlood() throws {
        var machine = Self.machine(maximumPendingBytes: 1024)
        _ = Self.feed(&machine, Self.head(.POST, "/verify"))
        #expect(Self.answered(Self.feed(&machine, .end)) != nil)
        var kept = 0
        while !machine.holdsReads {
            for part in [Self.head(.POST, "/verify", [("Content-Length", "40")]), Self.body(String(repeating: "x", count: 40)), .end] {
                _ = Self.feed(&machine, part)
            }
            kept += 1
            try #require(kept < 100, "reads never held")
        }
        #expect(kept == 1024 / (128 + "/verify".count + 40 + 16) + 1)
        #expect(machine.pendingBytes >= 1024)
        #expect(machine.answerReady(keepAlive: true) == .keepAlive)
        #expect(!machine.holdsReads)  // the answer is out: the kept requests are handed back, reads go on
        let pending = machine.takePending()
        #expect(pending.count == 3 * kept && machine.pendingBytes == 0)
    }

    @Test("bodyTooLargeByHeader: a declared Content-Length over the limit is refused from the head and the connection closes")
    func bodyTooLargeByHeader() {
        var machine = Self.machine()
        let action = Self.feed(&machine, Self.head(.POST, "/verify", [("Content-Length", "101")]))
        guard case .refuse(let request, .bodyTooLarge) = action else {
            Issue.record("not refused: \(action)")
            return
        }
        #expect(request.route == .verify)
        #expect(Self.answered(Self.feed(&machine, Self.body("x"))) == nil)
        #expect(Self.answered(Self.feed(&machine, .end)) == nil)  // the rest of the request is dropped
        #expect(machine.idleCheck(now: Self.start + .seconds(11)) == .close)
    }

    @Test("bodyTooLargeByChunks: a body passing the limit in chunks is dropped from there on and answered 413 at its end, then closed")
    func bodyTooLargeByChunks() throws {
        var machine = Self.machine(maximumBodyBytes: 10)
        _ = Self.feed(&machine, Self.head(.POST, "/verify", [("Transfer-Encoding", "chunked")]))
        _ = Self.feed(&machine, Self.body("123456"))
        _ = Self.feed(&machine, Self.body("789012"))
        _ = Self.feed(&machine, Self.body("3"))
        let (_, body, tooLarge) = try #require(Self.answered(Self.feed(&machine, .end)))
        #expect(body == nil && tooLarge)
        let outcome5 = machine.answerReady(keepAlive: false)
        #expect(outcome5 == .close)
    }

    @Test("bearerRefusalFromTheHead: /verify and /metrics without the secret are refused before any body; /health is open")
    func bearerRefusalFromTheHead() throws {
        let secret = try BearerSecret("a-shared-secret-of-32-characters")
        for (path, authorization) in [("/verify", nil), ("/metrics", "Bearer wrong-one-of-a-good-length")] {
            var machine = Self.machine(secret: secret)
            let headers = authorization.map { [("Authorization", $0)] } ?? []
            guard case .refuse(_, .unauthorized) = Self.feed(&machine, Self.head(path == "/verify" ? .POST : .GET, path, headers)) else {
                Issue.record("\(path) not refused")
                continue
            }
        }
        var machine = Self.machine(secret: secret)
        _ = Self.feed(&machine, Self.head(.POST, "/verify", [("Authorization", "Bearer a-shared-secret-of-32-characters")]))
        #expect(Self.answered(Self.feed(&machine, .end))?.0.route == .verify)
        let outcome6 = machine.answerReady(keepAlive: true)
        #expect(outcome6 == .keepAlive)
        _ = Self.feed(&machine, Self.head(.GET, "/health"))
        #expect(Self.answered(Self.feed(&machine, .end))?.0.route == .health)
    }

    @Test("lateHead: bytes of a head with no head by the end of the read arm the head deadline, which closes; not after a request ended")
    func lateHead() {
        var machine = Self.machine()
        let outcome7 = machine.readComplete(now: Self.start)
        #expect(outcome7 == .init(bodyDeadline: nil, armHeadDeadline: true))
        let outcome8 = machine.readComplete(now: Self.start)
        #expect(outcome8 == .init())  // armed once
        let outcome9 = machine.headDeadlineFired()
        #expect(outcome9)
        // A read that ended a request (the decoder may keep the start of the next head) arms nothing.
        var kept = Self.machine()
        _ = Self.feed(&kept, Self.head(.GET, "/health"))
        _ = Self.feed(&kept, .end)
        _ = kept.answerReady(keepAlive: true)
        let outcome10 = kept.readComplete(now: Self.start)
        #expect(outcome10 == .init())
        // A head that arrives in time disarms it.
        var inTime = Self.machine()
        _ = inTime.readComplete(now: Self.start)
        _ = Self.feed(&inTime, Self.head(.POST, "/verify"))
        let outcome11 = inTime.headDeadlineFired()
        #expect(!outcome11)
    }

    @Test("lateBody: a request still being read at the end of a read is due its body timeout after its head")
    func lateBody() {
        var machine = Self.machine()
        _ = Self.feed(&machine, Self.head(.POST, "/verify", [("Content-Length", "50")]))
        let outcome12 = machine.readComplete(now: Self.start + .seconds(1))
        #expect(outcome12 == .init(bodyDeadline: Self.start + .seconds(7)))
        let outcome13 = machine.readComplete(now: Self.start + .seconds(2))
        #expect(outcome13 == .init())  // armed once
        let outcome14 = machine.bodyDeadlineFired()
        #expect(outcome14)
        var complete = Self.machine()
        _ = Self.feed(&complete, Self.head(.POST, "/verify"))
        _ = complete.readComplete(now: Self.start)
        _ = Self.feed(&complete, .end)
        let outcome15 = complete.bodyDeadlineFired()
        #expect(!outcome15)  // the request ended in time
    }

    @Test("idleTimeout: counts from the last read; a request being read or answered keeps the connection open")
    func idleTimeout() {
        var machine = Self.machine()
        _ = machine.readComplete(now: Self.start + .seconds(4))
        #expect(machine.idleCheck(now: Self.start + .seconds(10)) == .checkAgain(at: Self.start + .seconds(14)))
        #expect(machine.idleCheck(now: Self.start + .seconds(14)) == .close)
        _ = Self.feed(&machine, Self.head(.POST, "/verify"))
        #expect(machine.idleCheck(now: Self.start + .seconds(14)) == .checkAgain(at: Self.start + .seconds(24)))
        _ = Self.feed(&machine, .end)
        #expect(machine.idleCheck(now: Self.start + .seconds(30)) == .checkAgain(at: Self.start + .seconds(40)))
    }

    @Test("quiescing: an idle connection closes at once; one with a request in flight answers it with Connection: close, then closes")
    func quiescing() {
        var idle = Self.machine()
        let outcome16 = idle.shouldQuiesce()
        #expect(outcome16)
        var busy = Self.machine()
        _ = Self.feed(&busy, Self.head(.POST, "/verify"))
        let outcome17 = busy.shouldQuiesce()
        #expect(!outcome17)
        #expect(Self.answered(Self.feed(&busy, .end)) != nil)
        _ = Self.feed(&busy, Self.head(.GET, "/health"))  // pipelined behind it: dropped with the close
        let outcome18 = busy.answerReady(keepAlive: true)
        #expect(outcome18 == .close)
        #expect(busy.pending.isEmpty)
    }
}
