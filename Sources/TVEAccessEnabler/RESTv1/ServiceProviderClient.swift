import Foundation
import TVECrypto
import TVEPassAPI
import TVETokens

/// The REST API v1 client of one service provider: the app's ``ClientCredentials`` (or a deprecated identity),
/// `X-Device-Info` on every call, back-off on 429 (``Throttling``), and the error bodies (legacy or enhanced) read into
/// ``AccessEnablerError``.
actor ServiceProviderClient {
    let baseURL: URL
    let transport: any EntitlementTransport
    let identity: ClientIdentity
    let requestor: String
    var deviceInfo: String
    /// `setOptions` values sent with every call (`applicationProfile`, `visitorID`).
    var extraFields: [(String, String)]
    let clock: any MediaTokenClock
    let sleep: @Sendable (Duration) async -> Void
    /// The registration and access token (the software statement's identity only).
    let credentials: ClientCredentials?

    init(
        baseURL: URL, requestor: String, identity: ClientIdentity, transport: any EntitlementTransport, deviceInfo: String,
        extraFields: [(String, String)], clock: any MediaTokenClock, sleep: @escaping @Sendable (Duration) async -> Void,
        registration: ClientRegistration? = nil
    ) {
        self.extraFields = extraFields
        self.baseURL = baseURL
        self.requestor = requestor
        self.identity = identity
        self.transport = transport
        self.deviceInfo = deviceInfo
        self.clock = clock
        self.sleep = sleep
        if case .softwareStatement(let statement, let redirectURI) = identity {
            credentials = ClientCredentials(
                baseURL: baseURL, softwareStatement: statement, redirectURI: redirectURI, transport: transport, clock: clock, sleep: sleep,
                deviceInfo: deviceInfo, stored: registration)
        } else {
            credentials = nil
        }
    }

    /// The client credentials in use (registered now or given at creation) and their access token, to keep across
    /// launches.
    var registration: ClientRegistration? { get async { await credentials?.registration } }

    func setExtras(_ fields: [(String, String)], deviceInfo: String) async {
        extraFields = fields
        self.deviceInfo = deviceInfo
        await credentials?.set(deviceInfo: deviceInfo)
    }

    // MARK: Requests

    /// A URL of this provider with a query.
    func url(_ path: String, _ query: [(String, String)] = []) -> URL {
        var text = baseURL.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty { text += "?" + FormCodec.encode(query) }
        return URL(string: text) ?? baseURL
    }

    /// Sends an API call with the client credential; retries once with a fresh access token after a 401, and backs
    /// off on 429.
    func call(
        _ method: String, _ path: String, query: [(String, String)] = [], form: [(String, String)]? = nil,
        authenticated: Bool = true
    ) async throws(AccessEnablerError) -> EntitlementHTTPResponse {
        var refreshed = false
        var throttling = Throttling()
        while true {
            var headers = ["Accept": "application/json", "X-Device-Info": deviceInfo]
            var fields = query + extraFields
            if authenticated {
                switch identity {
                case .softwareStatement:
                    guard let credentials else { throw AccessEnablerError(.notRegistered, "no client credentials") }
                    headers["Authorization"] = "Bearer " + (try await credentials.bearerToken())
                case .signedRequestorID(let signature):
                    fields.append(("signed_requestor_id", signature))
                case .clientless(let publicKey, let secret):
                    do {
                        headers["Authorization"] = try ClientlessRequestSigner(
                            requestorID: requestor, publicKey: publicKey, secret: secret, clock: clock
                        )
                        .authorizationHeader(method: method, requestURI: path)
                    } catch {
                        throw AccessEnablerError(.internalError, "the clientless signature could not be made")
                    }
                }
            }
            var body: Data? = nil
            if let form {
                body = Data(FormCodec.encode(form).utf8)
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            }
            let response = try await send(EntitlementHTTPRequest(method: method, url: url(path, fields), headers: headers, body: body))
            if response.status == 401, authenticated, let credentials, !refreshed {
                await credentials.invalidateAccessToken()
                refreshed = true
                continue
            }
            if response.status == 429 {
                guard let wait = throttling.wait(retryAfter: response.header("Retry-After"), now: clock.nowMilliseconds) else {
                    throw throttling.error("\(method) \(path)")
                }
                await sleep(wait)
                continue
            }
            return response
        }
    }

    private func send(_ request: EntitlementHTTPRequest) async throws(AccessEnablerError) -> EntitlementHTTPResponse {
        try await ServiceProviderAnswer.send(request, through: transport, host: baseURL.host)
    }

    /// The status and the service provider's message, for errors.
    static func describe(_ response: EntitlementHTTPResponse) -> String { ServiceProviderAnswer.describe(response) }

    /// The error body of an answer, if it has one of the REST API's error shapes.
    static func errorBody(_ response: EntitlementHTTPResponse) -> PassAPI.ErrorBody? {
        PassAPI.decode(PassAPI.ErrorBody.self, from: response.body)
    }

    /// The message of an error body (the MVPD's words for a denial).
    static func details(_ response: EntitlementHTTPResponse) -> String? {
        errorBody(response).flatMap { $0.details ?? $0.message }.map { String($0.prefix(1000)) }
    }

    /// The body of a successful answer, decoded as the contract says; `what` names it in the error.
    static func decode<Body: Decodable>(_ type: Body.Type, _ response: EntitlementHTTPResponse, _ what: String) throws(AccessEnablerError)
        -> Body
    {
        guard let body = PassAPI.decode(type, from: response.body) else {
            throw AccessEnablerError(.internalError, "the service provider's \(what) is not the JSON the REST API defines")
        }
        return body
    }
}
