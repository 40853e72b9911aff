import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVETokens

/// The answers of ``AdobeServiceDouble``, in the shapes of Adobe's documented samples.
extension AdobeServiceDouble {
    func route(_ request: EntitlementHTTPRequest, _ route: String) -> EntitlementHTTPResponse {
        switch (request.method, route) {
        case ("GET", "configuration"): return Self.json(Self.configuration)
        case ("POST", "sessions"): return session(request)
        case ("GET", "profiles"): return profiles(nil)
        case ("GET", let path) where path.hasPrefix("profiles/code/"):
            let code = String(path.dropFirst("profiles/code/".count))
            return state.withLock { $0.usedCodes.contains(code) } ? profiles(Self.mvpd) : Self.json(#"{"profiles":{}}"#)
        case ("GET", let path) where path.hasPrefix("profiles/"):
            return profiles(String(path.dropFirst("profiles/".count)))
        case ("POST", "decisions/authorize/\(Self.mvpd)"), ("POST", "decisions/authorize/\(Self.tempPass)"):
            return decisions(request, mvpd: String(route.split(separator: "/").last ?? ""), authorize: true)
        case ("POST", "decisions/preauthorize/\(Self.mvpd)"), ("POST", "decisions/preauthorize/\(Self.tempPass)"):
            return decisions(request, mvpd: String(route.split(separator: "/").last ?? ""), authorize: false)
        case ("GET", let path) where path.hasPrefix("logout/"):
            return logout(String(path.dropFirst("logout/".count)))
        default:
            return Self.error(404, "invalid_parameter", "No such resource")
        }
    }

    static let configuration = #"""
        {"requestor":{"id":"REF30","name":"REF30","unknownField":{"a":1},"domains":[{"name":"adobe.com","mvpdInitiated":false}],
        "mvpds":[{"id":"Cablevision","displayName":"Optimum","logoUrl":"https://logo.test/optimum.png","isTempPass":false,
        "boardingStatus":"SUPPORTED","platformMappingId":"Cablevision","enablePlatformServices":true,"displayInPlatformPicker":true,
        "enableSingleLogout":true,"someFutureField":"x"},
        {"id":"TempPass_REF30","displayName":"TempPass","isTempPass":true}]}}
        """#

    func register() -> EntitlementHTTPResponse {
        let id = "client-" + UUID().uuidString.prefix(8).lowercased()
        let secret = "secret-" + UUID().uuidString.lowercased()
        state.withLock { $0.clients[id] = secret }
        return Self.json(
            #"{"client_id":"\#(id)","client_secret":"\#(secret)","client_id_issued_at":1733735289,"redirect_uris":["https://adobe.com"],"grant_types":["client_credentials"]}"#,
            status: 201)
    }

    /// `POST /o/client/token`: the credentials from the form body or, as Adobe's `dcrApi.json` puts them, the query.
    func token(_ request: EntitlementHTTPRequest) -> EntitlementHTTPResponse {
        let fields = FormCodec.decode(String(decoding: request.body ?? Data(), as: UTF8.self)) + FormCodec.decode(request.url.query ?? "")
        let id = fields.first { $0.name == "client_id" }?.value
        let secret = fields.first { $0.name == "client_secret" }?.value
        guard let id, let secret, state.withLock({ $0.clients[id] }) == secret else {
            return Self.error(401, "invalid_client", "The client credentials are not valid")
        }
        let token = "at-" + UUID().uuidString.lowercased()
        state.withLock { _ = $0.tokens.insert(token) }
        return Self.json(#"{"access_token":"\#(token)","expires_in":86400,"token_type":"bearer","created_at":\#(clock.nowMilliseconds)}"#)
    }

    func session(_ request: EntitlementHTTPRequest) -> EntitlementHTTPResponse {
        let fields = FormCodec.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
        let mvpd = fields.first { $0.name == "mvpd" }?.value ?? Self.mvpd
        let redirect = fields.first { $0.name == "redirectUrl" }?.value
        let sessionID = UUID().uuidString.lowercased()
        let now = clock.nowMilliseconds
        let (held, degraded) = state.withLock { ($0.profiles[mvpd] != nil, $0.degraded) }
        if mvpd == Self.tempPass || held || degraded {
            if mvpd == Self.tempPass { logIn(Self.tempPass, type: "temporary", issuer: "Adobe") }
            let reason = mvpd == Self.tempPass ? "temporary" : held ? "authenticated" : "degraded"
            return Self.json(
                #"{"actionName":"authorize","actionType":"direct","reasonType":"\#(reason)","sessionId":"\#(sessionID)","mvpd":"\#(mvpd)","serviceProvider":"REF30"}"#
            )
        }
        let code = state.withLock { state -> String in
            state.nextCode += 1
            let code = "ABC\(state.nextCode)"
            state.sessions[code] = Session(redirectURL: redirect)
            return code
        }
        return Self.json(
            #"{"actionName":"authenticate","actionType":"interactive","reasonType":"none","code":"\#(code)","url":"/authenticate/REF30/\#(code)","sessionId":"\#(sessionID)","serviceProvider":"REF30","mvpd":"\#(mvpd)","notBefore":"\#(now)","notAfter":"\#(now + 1_800_000)"}"#
        )
    }

    /// The second screen's page: signs the viewer in at once, then returns to the session's redirect URL.
    func secondScreen(_ code: String) -> EntitlementHTTPResponse {
        guard let session = state.withLock({ $0.sessions[code] }) else {
            return EntitlementHTTPResponse(status: 404, headers: ["Content-Type": "text/html"], body: Data("<p>Unknown code.</p>".utf8))
        }
        useCode(code)
        guard let redirect = session.redirectURL else {
            return EntitlementHTTPResponse(
                status: 200, headers: ["Content-Type": "text/html"], body: Data("<h1>You are signed in</h1>".utf8))
        }
        return EntitlementHTTPResponse(status: 302, headers: ["Location": redirect, "Cache-Control": "no-store"])
    }

    func profiles(_ only: String?) -> EntitlementHTTPResponse {
        let now = clock.nowMilliseconds
        let held = state.withLock { state -> [String: (type: String, issuer: String)] in
            var held = state.profiles
            if state.degraded, held[Self.mvpd] == nil { held[Self.mvpd] = ("degraded", "Adobe") }
            return held
        }
        let entries = held.filter { only == nil || $0.key == only }.sorted { $0.key < $1.key }.map { mvpd, profile in
            let ends = now + (profile.type == "temporary" ? 3_600_000 : 86_400_000)
            let attributes =
                profile.type == "temporary" || profile.type == "degraded"
                ? "{}" : #"{"userID":{"value":"u-2a5b","state":"plain"},"zip":{"value":["10001"],"state":"plain"}}"#
            return
                #""\#(mvpd)":{"notBefore":\#(now),"notAfter":\#(ends),"issuer":"\#(profile.issuer)","type":"\#(profile.type)","attributes":\#(attributes),"unknown":true}"#
        }
        return Self.json(#"{"profiles":{\#(entries.joined(separator: ","))}}"#)
    }

    func decisions(_ request: EntitlementHTTPRequest, mvpd: String, authorize: Bool) -> EntitlementHTTPResponse {
        let now = clock.nowMilliseconds
        let asked = (try? JSONDecoder().decode([String: [String]].self, from: request.body ?? Data()))?["resources"] ?? []
        let (denied, degraded) = state.withLock { ($0.denied, $0.degraded) }
        let items = asked.map { resource -> String in
            let head = #""resource":"\#(resource)","serviceProvider":"REF30","mvpd":"\#(mvpd)""#
            if denied.contains(resource) {
                return
                    #"{\#(head),"source":"mvpd","authorized":false,"error":{"action":"none","status":403,"code":"authorization_denied_by_mvpd","message":"The MVPD has returned a \"Deny\" decision when requesting authorization for the specified resource","details":"Your subscription package does not include the \"\#(resource)\" channel","helpUrl":"https://experienceleague.adobe.com/docs/pass/authentication/auth-features/error-reportn/enhanced-error-codes.html","trace":"12f6fef9-d2e0-422b-a9d7-60d799abe353"}}"#
            }
            var token = ""
            if authorize, let issued = try? issuer.issue(requestorID: Self.requestor, resourceID: resource, mvpdId: mvpd) {
                token =
                    #","token":{"notBefore":\#(issued.issueTime),"notAfter":\#(issued.issueTime + issued.ttl),"serializedToken":"\#(issued.serialized)"}"#
            }
            let source = mvpd == Self.tempPass ? "temppass" : degraded ? "degradation" : "mvpd"
            return #"{\#(head),"source":"\#(source)","authorized":true,"notBefore":\#(now),"notAfter":\#(now + 86_400_000)\#(token)}"#
        }
        return Self.json(#"{"decisions":[\#(items.joined(separator: ","))]}"#)
    }

    func logout(_ mvpd: String) -> EntitlementHTTPResponse {
        let type = state.withLock { $0.profiles.removeValue(forKey: mvpd)?.type }
        let action: String
        switch type {
        case nil: action = #"{"actionName":"invalid","actionType":"none","mvpd":"\#(mvpd)"}"#
        case "appleSSO"?: action = #"{"actionName":"partner_logout","actionType":"none","mvpd":"\#(mvpd)"}"#
        case "temporary"?: action = #"{"actionName":"complete","actionType":"none","mvpd":"\#(mvpd)"}"#
        default:
            action =
                #"{"actionName":"logout","actionType":"interactive","mvpd":"\#(mvpd)","url":"https://logout.cablevision.test/end?x=1"}"#
        }
        return Self.json(#"{"logouts":{"\#(mvpd)":\#(action)}}"#)
    }
}
