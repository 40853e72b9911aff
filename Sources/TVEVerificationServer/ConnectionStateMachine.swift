import NIOCore
import NIOHTTP1
import TVEVerification

/// One connection's state, as swift-nio's own state machines keep theirs: a value whose methods take the connection's
/// events (a request part, the end of a read burst, a timer, the quiesce event, an answer ready to write) and return
/// what the handler is to do. It never touches a channel, a clock or a timer itself, so that every behaviour of a
/// connection is tested by feeding it events (`ConnectionStateMachineTests`).
///
/// A connection reads a request (head, body bounded in size, end), answers it, and keeps alive or closes. A request
/// refused from its head (a missing bearer secret, a declared body over the limit) is answered at once and the
/// connection closes without reading the rest. While an answer waits for an asynchronous replay store, the connection
/// goes on reading: the requests that follow it (pipelined) are kept, in order, and handed back once the answer is out;
/// reads are held only when what is kept passes ``Limits/maximumPendingBytes``. (Holding reads for every answer that
/// waits cost two `epoll_ctl` calls per request, a tenth of the server's time on a database's answer.)
struct ConnectionStateMachine {
    /// What every connection of a server shares.
    struct Limits: Sendable {
        var maximumBodyBytes = VerificationService.maximumBodyBytes
        var bearerSecret: BearerSecret?
        var idleTimeout: TimeAmount
        var headTimeout: TimeAmount
        var bodyTimeout: TimeAmount
        /// The bytes of requests kept while an answer is computed past which reads are held (a head counts its
        /// target, its `Authorization` field and 128 bytes).
        var maximumPendingBytes = 64 * 1024
    }

    /// A request, as its head says.
    struct Request {
        let route: VerificationService.Route
        /// The method's name and the target without its query, for the request log.
        let method: HTTPMethod
        let path: Substring
        let version: HTTPVersion
        /// The client asked to keep the connection alive.
        let keepAlive: Bool
        /// When its head arrived (the request log's time counts from here).
        let started: NIODeadline
    }

    /// Why a request was answered from its head.
    enum Refusal: Equatable {
        /// A protected route without the bearer secret: 401 with a `Bearer` challenge.
        case unauthorized
        /// A declared body over the limit: 413.
        case bodyTooLarge
    }

    enum State {
        /// Between requests (bytes of a head may have arrived).
        case idle
        /// A request's head arrived; its body is being read (dropped from the limit on when `tooLarge`).
        case reading(Request, body: ByteBuffer?, tooLarge: Bool, headArrived: NIODeadline)
        /// A whole request's answer is being computed.
        case answering(Request)
        /// The connection is closing: whatever still comes is dropped.
        case closing
    }

    /// What to do with a request part.
    enum ReadAction {
        /// Nothing yet (a body chunk kept or dropped, a part kept for later).
        case none
        /// Answer `request` from its head, then close the connection (lingering: the client may still be sending).
        case refuse(Request, Refusal)
        /// The request is whole: answer it (413 when `tooLarge`), then call ``answerReady(keepAlive:)``.
        case answer(Request, body: ByteBuffer?, tooLarge: Bool)
    }

    /// How an answer leaves.
    enum ResponseMode: Equatable {
        case keepAlive
        /// `Connection: close`, then close once written.
        case close
        /// `Connection: close`, then close the output once written and drop what still comes (the client may still be
        /// sending the body it announced: a reset would lose the answer); close entirely 2 s later.
        case closeLingering
    }

    /// The timers to arm at the end of a read burst.
    struct ReadCompleteAction: Equatable {
        /// The request being read must be whole by then.
        var bodyDeadline: NIODeadline?
        /// A head begun in this burst must be whole within the head timeout.
        var armHeadDeadline = false
    }

    /// What the idle check decides.
    enum IdleAction: Equatable {
        case close
        case checkAgain(at: NIODeadline)
    }

    let limits: Limits
    private(set) var state: State = .idle
    /// The parts that came while an answer was being computed (a client pipelining), in order.
    private(set) var pending: [HTTPRequestReader.Part] = []
    /// The size of ``pending``, as ``Limits/maximumPendingBytes`` counts it.
    private(set) var pendingBytes = 0
    /// The server is stopping: finish the request in flight, then close.
    private(set) var quiescing = false
    private var requestEndedInThisRead = false
    private var bodyDeadlineArmed = false
    private var headDeadlineArmed = false
    /// When the connection last received bytes (the end of its last read burst).
    private var lastRead: NIODeadline

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        lastRead = now
    }

    /// Whether reads are held: an answer is being computed, and the parts that came meanwhile (kept in ``pending``)
    /// reached ``Limits/maximumPendingBytes``.
    var holdsReads: Bool {
        if case .answering = state { return pendingBytes >= limits.maximumPendingBytes }
        return false
    }

    /// A request part arrived (`now` is read only for a head: the time its head arrived).
    mutating func received(_ part: HTTPRequestReader.Part, now: @autoclosure () -> NIODeadline) -> ReadAction {
        switch state {
        case .closing:
            return .none
        case .answering:
            pending.append(part)
            pendingBytes += Self.keptBytes(part)
            return .none
        case .idle:
            guard case .head(let head) = part else { return .none }  // a body without a head cannot come from the reader
            headDeadlineArmed = false
            let arrived = now()
            let request = Self.request(head, started: arrived)
            if let secret = limits.bearerSecret, request.route == .verify || request.route == .metrics,
                !secret.accepts(authorization: head.authorization)
            {
                state = .closing
                return .refuse(request, .unauthorized)
            }
            if let declared = head.contentLength, declared > limits.maximumBodyBytes {
                state = .closing
                return .refuse(request, .bodyTooLarge)
            }
            state = .reading(request, body: nil, tooLarge: false, headArrived: arrived)
            return .none
        case .reading(let request, var body, var tooLarge, let headArrived):
            switch part {
            case .head:
                return .none  // the reader never gives a head before the end of the previous request
            case .body(var chunk):
                guard !tooLarge else { return .none }
                state = .closing  // no copy of the body while it is changed
                if (body?.readableBytes ?? 0) + chunk.readableBytes > limits.maximumBodyBytes {
                    tooLarge = true
                    body = nil
                } else if body == nil {
                    body = chunk
                } else {
                    body?.writeBuffer(&chunk)
                }
                state = .reading(request, body: body, tooLarge: tooLarge, headArrived: headArrived)
                return .none
            case .end:
                requestEndedInThisRead = true
                bodyDeadlineArmed = false
                state = .answering(request)
                return .answer(request, body: body, tooLarge: tooLarge)
            }
        }
    }

    /// The answer of the request in ``State/answering`` is about to be written (before writing it, which may hand
    /// the next request in). `keepAlive`: the answer allows it (not a body over the limit).
    mutating func answerReady(keepAlive: Bool) -> ResponseMode {
        guard case .answering(let request) = state else { return .close }
        if request.keepAlive, keepAlive, !quiescing {
            state = .idle
            return .keepAlive
        }
        state = .closing
        pending.removeAll()
        pendingBytes = 0
        return .close
    }

    /// The parts kept while an answer was computed, to feed again to ``received(_:now:)`` in order (the
    /// machine forgets them: a part that meets another answer in progress is kept again).
    mutating func takePending() -> [HTTPRequestReader.Part] {
        defer {
            pending.removeAll()
            pendingBytes = 0
        }
        return pending
    }

    /// What a kept part counts toward ``Limits/maximumPendingBytes``.
    static func keptBytes(_ part: HTTPRequestReader.Part) -> Int {
        switch part {
        case .head(let head): 128 + head.target.utf8.count + (head.authorization?.utf8.count ?? 0)
        case .body(let chunk): chunk.readableBytes
        case .end: 16
        }
    }

    /// A read burst ended.
    mutating func readComplete(now: NIODeadline) -> ReadCompleteAction {
        lastRead = now
        var action = ReadCompleteAction()
        switch state {
        case .reading(_, _, _, let headArrived) where !bodyDeadlineArmed:
            // A request still being read at the end of a burst: its body must be complete in time.
            bodyDeadlineArmed = true
            action.bodyDeadline = headArrived + limits.bodyTimeout
        case .idle where !requestEndedInThisRead && !headDeadlineArmed:
            // Bytes that brought no head while none is in progress: the start of a head, which must be whole in time.
            headDeadlineArmed = true
            action.armHeadDeadline = true
        default:
            break
        }
        requestEndedInThisRead = false
        return action
    }

    /// The body deadline fired: close when the request is still being read.
    mutating func bodyDeadlineFired() -> Bool {
        bodyDeadlineArmed = false
        if case .reading = state { return true }
        return false
    }

    /// The head deadline fired: close when no head came since.
    mutating func headDeadlineFired() -> Bool {
        let due = headDeadlineArmed
        headDeadlineArmed = false
        if due, case .idle = state { return true }
        return false
    }

    /// The idle check fired: close a connection that received nothing for the idle timeout with no request being read
    /// or answered; otherwise check again an idle timeout after the last read (or from now, with a request in progress).
    func idleCheck(now: NIODeadline) -> IdleAction {
        let due = lastRead + limits.idleTimeout
        if now < due { return .checkAgain(at: due) }
        if case .idle = state, pending.isEmpty { return .close }
        if case .closing = state { return .close }
        return .checkAgain(at: now + limits.idleTimeout)
    }

    /// NIO's `ChannelShouldQuiesceEvent`: returns true when the connection closes now (nothing in progress); otherwise
    /// the request in progress is answered with `Connection: close` and the connection closes after it.
    mutating func shouldQuiesce() -> Bool {
        quiescing = true
        switch state {
        case .idle, .closing:
            state = .closing
            pending.removeAll()
            pendingBytes = 0
            return true
        case .reading, .answering:
            return false
        }
    }

    /// The request of a head: its route (decided once, here), its path without the query, keep-alive.
    static func request(_ head: HTTPRequestReader.Head, started: NIODeadline) -> Request {
        let uri = head.target
        let path = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
        return Request(
            route: VerificationService.route(method: head.method.rawValue, path: path), method: head.method, path: path,
            version: head.version, keepAlive: head.keepAlive, started: started)
    }
}
