import Foundation
import TVEAccessEnabler
import TVECrypto

/// A stand-in for Adobe's REST API v2 service that answers in the shapes and habits of Adobe's documentation, not the
/// local provider's: Adobe's sample names (`REF30`, `Cablevision`, `adobe.com`), session times as strings, profile and
/// decision times as numbers, fields the contract does not list, item-level denials with Adobe's sample words, degraded
/// access (profile `type: degraded`, issuer `Adobe`; decision `source: degradation`), the other single-sign-on profile
/// types, throttling (429, with or without `Retry-After`) and access tokens that expire (401
/// `invalid_access_token`). An in-process ``EntitlementTransport``: no socket, every request recorded.
final class AdobeV2Double: EntitlementTransport {
    static let base = URL(string: "https://sp.auth.adobe.test") ?? URL(fileURLWithPath: "/")
    static let requestor = "REF30"
    static let mvpd = "Cablevision"

    struct State {
        var requests: [EntitlementHTTPRequest] = []
        /// Throttling: the next `count` requests whose path contains the key answer 429 (with `Retry-After` when set).
        var throttles: [(path: String, count: Int, retryAfter: String?)] = []
        var clients: [String: String] = [:]
        var tokens: Set<String> = []
        /// The device's profiles by MVPD: its `type` and `issuer`.
        var profiles: [String: (type: String, issuer: String)] = [:]
        /// Resources the MVPD denies.
        var denied: Set<String> = []
        /// Adobe's operators switched degraded access on for the MVPD.
        var degraded = false
        /// A session's code, once a second screen has logged in with it.
        var usedCodes: Set<String> = []
        var nextCode = 1
    }

    let state = Locked(State())
    let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// The requests whose path contains `path`.
    func sent(_ path: String) -> [EntitlementHTTPRequest] { state.withLock { $0.requests }.filter { $0.url.path.contains(path) } }

    /// The next `count` requests to a path containing `path` answer 429.
    func throttle(_ path: String, count: Int = 1, retryAfter: String? = nil) {
        state.withLock { $0.throttles.append((path, count, retryAfter)) }
    }

    /// Every access token given so far expires (the next call with one answers 401).
    func expireTokens() { state.withLock { $0.tokens = [] } }

    /// A login finished elsewhere (a second screen, another app's single sign-on).
    func logIn(type: String = "regular", issuer: String = AdobeV2Double.mvpd) {
        state.withLock { $0.profiles[Self.mvpd] = (type, issuer) }
    }

    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
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
            return EntitlementHTTPResponse(
                status: 429, headers: headers,
                body: Data(#"{"status":429,"code":"too_many_requests","message":"Too many requests","action":"retry"}"#.utf8))
        }
        if path == "/o/client/register" { return register() }
        if path == "/o/client/token" { return token(request) }
        guard path.hasPrefix("/api/v2/\(Self.requestor)/") else { return error(404, "invalid_requestor", "The requestor is not known") }
        let bearer = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        guard state.withLock({ $0.tokens.contains(bearer) }) else {
            return error(401, "invalid_access_token", "The access token is invalid or expired")
        }
        let route = String(path.dropFirst("/api/v2/\(Self.requestor)/".count))
        switch (request.method, route) {
        case ("GET", "configuration"): return json(configuration)
        case ("POST", "sessions"): return session(request)
        case ("GET", "profiles"), ("GET", "profiles/\(Self.mvpd)"): return profiles()
        case ("GET", let code) where code.hasPrefix("profiles/code/"):
            return state.withLock { $0.usedCodes.contains(String(code.dropFirst("profiles/code/".count))) }
                ? profiles() : json(#"{"profiles":{}}"#)
        case ("POST", "decisions/authorize/\(Self.mvpd)"), ("POST", "decisions/preauthorize/\(Self.mvpd)"):
            return decisions(request, authorize: route.hasPrefix("decisions/authorize"))
        case ("GET", "logout/TempPass_REF30"):
            state.withLock { _ = $0.profiles.removeValue(forKey: "TempPass_REF30") }
            return json(#"{"logouts":{"TempPass_REF30":{"actionName":"complete","actionType":"none","mvpd":"TempPass_REF30"}}}"#)
        case ("GET", "logout/\(Self.mvpd)"):
            let type = state.withLock { $0.profiles.removeValue(forKey: Self.mvpd)?.type }
            let action =
                type == "appleSSO"
                ? #"{"actionName":"partner_logout","actionType":"none","mvpd":"Cablevision"}"#
                : #"{"actionName":"logout","actionType":"interactive","mvpd":"Cablevision","url":"https://logout.cablevision.test/end?x=1"}"#
            return json(#"{"logouts":{"Cablevision":\#(action)}}"#)
        default: return error(404, "invalid_parameter", "No such resource")
        }
    }

    /// A second screen logs in with the session's code.
    func useCode(_ code: String) {
        state.withLock {
            $0.usedCodes.insert(code)
            $0.profiles[Self.mvpd] = ("regular", Self.mvpd)
        }
    }

    private func register() -> EntitlementHTTPResponse {
        let id = "client-\(UUID().uuidString.prefix(8))"
        state.withLock { $0.clients[id] = "secret-" + id }
        return EntitlementHTTPResponse(
            status: 201, headers: ["Content-Type": "application/json"],
            body: Data(
                #"{"client_id":"\#(id)","client_secret":"secret-\#(id)","client_id_issued_at":1733735289,"redirect_uris":["https://adobe.com"],"grant_types":["client_credentials"]}"#
                    .utf8))
    }

    private func token(_ request: EntitlementHTTPRequest) -> EntitlementHTTPResponse {
        let form = String(decoding: request.body ?? Data(), as: UTF8.self) + "&" + (request.url.query ?? "")
        let fields = Dictionary(
            form.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }.filter { $0.count == 2 }.map {
                ($0[0], $0[1].removingPercentEncoding ?? $0[1])
            }, uniquingKeysWith: { first, _ in first })
        guard let id = fields["client_id"], state.withLock({ $0.clients[id] }) == fields["client_secret"] else {
            return error(401, "invalid_client", "The client credentials are not valid")
        }
        let token = "at-" + UUID().uuidString
        state.withLock { _ = $0.tokens.insert(token) }
        return json(#"{"access_token":"\#(token)","expires_in":86400,"token_type":"bearer","created_at":\#(now())}"#, status: 200)
    }

    private var configuration: String {
        #"""
        {"requestor":{"id":"REF30","name":"REF30","unknownField":{"a":1},"domains":[{"name":"adobe.com","mvpdInitiated":false}],
        "mvpds":[{"id":"Cablevision","displayName":"Optimum","logoUrl":"https://logo.test/optimum.png","isTempPass":false,
        "boardingStatus":"SUPPORTED","platformMappingId":"Cablevision","enablePlatformServices":true,"displayInPlatformPicker":true,
        "enableSingleLogout":true,"someFutureField":"x"},
        {"id":"TempPass_REF30","displayName":"TempPass","isTempPass":true}]}}
        """#
    }

    private func session(_ request: EntitlementHTTPRequest) -> EntitlementHTTPResponse {
        let now = now()
        if state.withLock({ $0.profiles[Self.mvpd] != nil || $0.degraded }) {
            let reason = state.withLock { $0.degraded && $0.profiles[Self.mvpd] == nil } ? "degraded" : "authenticated"
            return json(
                #"{"actionName":"authorize","actionType":"direct","reasonType":"\#(reason)","sessionId":"\#(UUID().uuidString.lowercased())","mvpd":"Cablevision","serviceProvider":"REF30"}"#
            )
        }
        let code = state.withLock { state -> String in
            state.nextCode += 1
            return "ABC\(1000 + state.nextCode)"
        }
        return json(
            #"{"actionName":"authenticate","actionType":"interactive","reasonType":"none","code":"\#(code)","url":"/authenticate/REF30/\#(code)","sessionId":"\#(UUID().uuidString.lowercased())","serviceProvider":"REF30","mvpd":"Cablevision","notBefore":"\#(now)","notAfter":"\#(now + 1_800_000)"}"#
        )
    }

    private func profiles() -> EntitlementHTTPResponse {
        let now = now()
        let profile = state.withLock { state -> (type: String, issuer: String)? in
            state.profiles[Self.mvpd] ?? (state.degraded ? ("degraded", "Adobe") : nil)
        }
        let temp = state.withLock { $0.profiles["TempPass_REF30"] != nil }
        let tempProfile =
            temp
            ? #""TempPass_REF30":{"notBefore":\#(now),"notAfter":\#(now + 3_600_000),"issuer":"Adobe","type":"temporary","attributes":{}}"#
            : ""
        guard let profile else { return json(#"{"profiles":{\#(tempProfile)}}"#) }
        return json(
            #"{"profiles":{"Cablevision":{"notBefore":\#(now),"notAfter":\#(now + 86_400_000),"issuer":"\#(profile.issuer)","type":"\#(profile.type)","attributes":{"userID":{"value":"u-2a5b","state":"plain"},"zip":{"value":["10001"],"state":"plain"}},"unknown":true}\#(temp ? "," + tempProfile : "")}}"#
        )
    }

    private func decisions(_ request: EntitlementHTTPRequest, authorize: Bool) -> EntitlementHTTPResponse {
        let now = now()
        let asked = (try? JSONDecoder().decode([String: [String]].self, from: request.body ?? Data()))?["resources"] ?? []
        let (denied, degraded) = state.withLock { ($0.denied, $0.degraded) }
        let items = asked.map { resource -> String in
            if denied.contains(resource) {
                return
                    #"{"resource":"\#(resource)","serviceProvider":"REF30","mvpd":"Cablevision","source":"mvpd","authorized":false,"error":{"action":"none","status":403,"code":"authorization_denied_by_mvpd","message":"The MVPD has returned a \"Deny\" decision when requesting authorization for the specified resource","details":"Your subscription package does not include the \"Live\" channel","helpUrl":"https://experienceleague.adobe.com/docs/pass/authentication/auth-features/error-reportn/enhanced-error-codes.html","trace":"12f6fef9-d2e0-422b-a9d7-60d799abe353"}}"#
            }
            let token =
                authorize
                ? #","token":{"notBefore":\#(now),"notAfter":\#(now + 420_000),"serializedToken":"PHNpZ25hdHVyZUluZm8+dG9rZW48L3NpZ25hdHVyZUluZm8+"}"#
                : ""
            return
                #"{"resource":"\#(resource)","serviceProvider":"REF30","mvpd":"Cablevision","source":"\#(degraded ? "degradation" : "mvpd")","authorized":true,"notBefore":\#(now),"notAfter":\#(now + 86_400_000)\#(token)}"#
        }
        return json(#"{"decisions":[\#(items.joined(separator: ","))]}"#)
    }

    private func json(_ body: String, status: Int = 200) -> EntitlementHTTPResponse {
        EntitlementHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    private func error(_ status: Int, _ code: String, _ message: String) -> EntitlementHTTPResponse {
        json(#"{"status":\#(status),"code":"\#(code)","message":"\#(message)","action":"none"}"#, status: status)
    }
}
