import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto
import TVETokens

/// A stand-in for Adobe's REST API v2 service, for an app's tests: it answers in the shapes and habits of Adobe's
/// documentation and of the service as apps meet it, not to the letter of the contract file as the local service provider
/// does.
///
/// - Adobe's sample names: requestor `REF30`, MVPD `Cablevision` (and a TempPass, `TempPass_REF30`), domain `adobe.com`.
/// - Session times as strings, profile and decision times as numbers; fields the contract does not list.
/// - Item-level denials with Adobe's sample words (`authorization_denied_by_mvpd`).
/// - Degraded access (``setDegraded(_:)``): a profile of `type` `degraded` issued by `Adobe`, decisions of `source`
///   `degradation`; the single-sign-on profile types (``logIn(_:type:issuer:)``).
/// - Throttling (``throttle(_:count:retryAfter:)``: 429 with or without `Retry-After`) and access tokens that expire
///   (``expireAccessTokens()``: 401 `invalid_access_token`); a requestor it does not know gets 400 `invalid_requestor`.
/// - Media tokens signed with the key given, which the app's back end verifies as Adobe's.
///
/// It is an `EntitlementTransport` (give it to `AsyncAccessEnabler.Configuration.transport` and use ``baseURL`` as
/// the service provider), or a server on loopback (``run(_:)``) for another process such as `tvekit client`. There, the
/// second screen's page (`/api/v2/authenticate/REF30/{code}`) signs the viewer in at once and returns to the session's
/// redirect URL. Every request is recorded (``requests``).
public final class AdobeServiceDouble: EntitlementTransport, Sendable {
    /// The requestor (Adobe's sample service provider).
    public static let requestor = "REF30"
    /// The MVPD (Adobe's sample).
    public static let mvpd = "Cablevision"
    /// A TempPass MVPD the requestor offers too.
    public static let tempPass = "TempPass_REF30"
    /// The service provider's URL when the double is used as a transport.
    public static let baseURL = URL(string: "https://sp.auth.adobe.test") ?? URL(fileURLWithPath: "/")

    struct Session: Sendable {
        let redirectURL: String?
    }

    struct State: Sendable {
        var requests: [EntitlementHTTPRequest] = []
        var throttles: [(path: String, count: Int, retryAfter: String?)] = []
        var clients: [String: String] = [:]
        var tokens: Set<String> = []
        /// The device's profiles by MVPD: their `type` and `issuer`.
        var profiles: [String: (type: String, issuer: String)] = [:]
        var denied: Set<String> = []
        var degraded = false
        var sessions: [String: Session] = [:]
        var usedCodes: Set<String> = []
        var nextCode = 1000
    }

    let state = Locked(State())
    let clock: any MediaTokenClock
    let issuer: MediaTokenIssuer

    /// A double whose media tokens `mediaTokenKey` signs (2048 bits or more), at the times of `clock`.
    public init(mediaTokenKey: RSAPrivateKey, clock: any MediaTokenClock = SystemMediaTokenClock()) {
        self.clock = clock
        issuer = MediaTokenIssuer(privateKey: mediaTokenKey, clock: clock)
    }

    // MARK: What the test sees and sets

    /// Every request received, in order.
    public var requests: [EntitlementHTTPRequest] { state.withLock { $0.requests } }

    /// The requests whose path contains `path`.
    public func sent(_ path: String) -> [EntitlementHTTPRequest] { requests.filter { $0.url.path.contains(path) } }

    /// The next `count` requests to a path containing `path` answer 429, with `Retry-After: retryAfter` when it is given.
    public func throttle(_ path: String, count: Int = 1, retryAfter: String? = nil) {
        state.withLock { $0.throttles.append((path, count, retryAfter)) }
    }

    /// Every access token given so far expires: the next call with one answers 401 `invalid_access_token`.
    public func expireAccessTokens() { state.withLock { $0.tokens = [] } }

    /// The device holds a profile with `mvpd` (a login finished elsewhere, or single sign-on), of `type` (`regular`,
    /// `appleSSO`, `platformSSO`, `serviceTokenSSO`, `temporary`, `degraded`) issued by `issuer`.
    public func logIn(_ mvpd: String = AdobeServiceDouble.mvpd, type: String = "regular", issuer: String = AdobeServiceDouble.mvpd) {
        state.withLock { $0.profiles[mvpd] = (type, issuer) }
    }

    /// A second screen signs the viewer in with the session `code`.
    public func useCode(_ code: String) {
        state.withLock {
            $0.usedCodes.insert(code)
            $0.profiles[Self.mvpd] = ("regular", Self.mvpd)
        }
    }

    /// The MVPD denies `resources` from now on.
    public func deny(_ resources: Set<String>) { state.withLock { $0.denied = resources } }

    /// Adobe's operators switch degraded access on (the MVPD is down) or off.
    public func setDegraded(_ degraded: Bool) { state.withLock { $0.degraded = degraded } }

    /// The client secrets registered so far.
    public var clientSecrets: [String] { state.withLock { Array($0.clients.values) } }

    // MARK: The transport

    /// Answers `request` as Adobe's service does.
    public func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse { answer(request) }

    /// Answers one request (the transport's and the loopback server's).
    func answer(_ request: EntitlementHTTPRequest) -> EntitlementHTTPResponse {
        let path = request.url.path
        let throttled = state.withLock { state -> String?? in
            state.requests.append(request)
            guard let index = state.throttles.firstIndex(where: { path.contains($0.path) && $0.count > 0 }) else { return nil }
            state.throttles[index].count -= 1
            return .some(state.throttles[index].retryAfter)
        }
        if let retryAfter = throttled {
            var headers = ["Content-Type": "application/json"]
            headers["Retry-After"] = retryAfter
            return Self.json(
                #"{"status":429,"code":"too_many_requests","message":"Too many requests","action":"retry"}"#, status: 429, headers)
        }
        if path == "/o/client/register" { return register() }
        if path == "/o/client/token" { return token(request) }
        let prefix = "/api/v2/\(Self.requestor)/"
        if path.hasPrefix("/api/v2/authenticate/\(Self.requestor)/") { return secondScreen(String(path.split(separator: "/").last ?? "")) }
        guard path.hasPrefix(prefix) else {
            return Self.error(400, "invalid_requestor", "The requestor parameter is missing or invalid")
        }
        let bearer = Self.header(request, "Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? ""
        guard state.withLock({ $0.tokens.contains(bearer) }) else {
            return Self.error(401, "invalid_access_token", "The access token is invalid or expired")
        }
        return route(request, String(path.dropFirst(prefix.count)))
    }

    /// A header, whatever the case of its name.
    static func header(_ request: EntitlementHTTPRequest, _ name: String) -> String? {
        request.headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    static func json(_ body: String, status: Int = 200, _ headers: [String: String] = ["Content-Type": "application/json"])
        -> EntitlementHTTPResponse
    {
        EntitlementHTTPResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> EntitlementHTTPResponse {
        json(#"{"status":\#(status),"code":"\#(code)","message":"\#(message)","action":"none"}"#, status: status)
    }
}
