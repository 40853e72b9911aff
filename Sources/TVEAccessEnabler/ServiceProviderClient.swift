import Foundation
import TVECrypto
import TVEPassAPI
import TVETokens

/// The REST API v1 client of one service provider: client credentials and access token (cached, refreshed),
/// `X-Device-Info` on every call, back-off on 429, and the error bodies (legacy or enhanced) read into
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
    /// 429 answers are retried this many times, waiting `Retry-After` (at least 1 s) and doubling.
    static let maximumRetries = 3
    /// The largest response body read.
    static let maximumBodyBytes = 4 << 20

    private var clientCredentials: (id: String, secret: String)?
    private var accessToken: (token: String, expires: Int64)?

    init(
        baseURL: URL, requestor: String, identity: ClientIdentity, transport: any EntitlementTransport, deviceInfo: String,
        extraFields: [(String, String)], clock: any MediaTokenClock, sleep: @escaping @Sendable (Duration) async -> Void,
        registration: ClientRegistration? = nil
    ) {
        clientCredentials = registration.map { ($0.clientID, $0.clientSecret) }
        self.extraFields = extraFields
        self.baseURL = baseURL
        self.requestor = requestor
        self.identity = identity
        self.transport = transport
        self.deviceInfo = deviceInfo
        self.clock = clock
        self.sleep = sleep
    }

    /// The client credentials in use (registered now or given at creation), to keep across launches.
    var registration: ClientRegistration? { clientCredentials.map { ClientRegistration(clientID: $0.id, clientSecret: $0.secret) } }

    func setExtras(_ fields: [(String, String)], deviceInfo: String) {
        extraFields = fields
        self.deviceInfo = deviceInfo
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
        var attempt = 0
        var wait = Duration.seconds(1)
        while true {
            var headers = ["Accept": "application/json", "X-Device-Info": deviceInfo]
            var fields = query + extraFields
            if authenticated {
                switch identity {
                case .softwareStatement:
                    headers["Authorization"] = "Bearer " + (try await bearer())
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
            if response.status == 401, authenticated, case .softwareStatement = identity, !refreshed {
                accessToken = nil
                refreshed = true
                continue
            }
            if response.status == 429 {
                attempt += 1
                if Task.isCancelled {
                    throw AccessEnablerError(.throttled, "the service provider throttled \(method) \(path)", httpStatus: 429)
                }
                guard attempt <= Self.maximumRetries else {
                    throw AccessEnablerError(.throttled, "the service provider throttled \(method) \(path)", httpStatus: 429)
                }
                let retryAfter = response.header("Retry-After").flatMap { Int64($0) }.map { Duration.seconds(min(max($0, 1), 60)) }
                await sleep(max(retryAfter ?? wait, wait))
                wait *= 2
                continue
            }
            return response
        }
    }

    private func send(_ request: EntitlementHTTPRequest) async throws(AccessEnablerError) -> EntitlementHTTPResponse {
        let response: EntitlementHTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as AccessEnablerError {
            throw error  // the transport's deadline or size limit
        } catch is CancellationError {
            throw AccessEnablerError(.internalError, "the call to the service provider \(baseURL.host ?? "?") was cancelled")
        } catch {
            throw AccessEnablerError(.internalError, "the service provider \(baseURL.host ?? "?") cannot be reached")
        }
        guard response.body.count <= Self.maximumBodyBytes else {
            throw AccessEnablerError(.internalError, "the service provider's answer is over \(Self.maximumBodyBytes) bytes")
        }
        return response
    }

    /// The Bearer access token for REST API v2 calls (the same DCR client and token as v1's).
    func bearerToken() async throws(AccessEnablerError) -> String { try await bearer() }

    /// Drops the access token (the service provider answered 401): the next call gets a new one.
    func invalidateAccessToken() { accessToken = nil }

    private var inFlightBearer: Task<Result<String, AccessEnablerError>, Never>?

    /// The Bearer access token: registers the client the first time, then gets a token, reused until a minute before
    /// it expires. Concurrent callers share one registration and one token request.
    private func bearer() async throws(AccessEnablerError) -> String {
        if let accessToken, accessToken.expires - 60_000 > clock.nowMilliseconds { return accessToken.token }
        if let inFlightBearer { return try await inFlightBearer.value.get() }
        let task = Task { () -> Result<String, AccessEnablerError> in
            do {
                return .success(try await self.fetchBearer())
            } catch let error as AccessEnablerError {
                return .failure(error)
            } catch {
                return .failure(AccessEnablerError(.accessTokenError, "no access token"))
            }
        }
        inFlightBearer = task
        let result = await task.value
        inFlightBearer = nil
        return try result.get()
    }

    /// Registers the client when it has no credentials, then asks for an access token. Credentials the service
    /// provider no longer knows (401: a registration kept from an earlier launch, revoked since) are dropped and the
    /// client registers again, once.
    private func fetchBearer() async throws(AccessEnablerError) -> String {
        guard case .softwareStatement(let statement, let redirectURI) = identity else {
            throw AccessEnablerError(.internalError, "no software statement")
        }
        var registeredNow = false
        while true {
            let now = clock.nowMilliseconds
            if clientCredentials == nil {
                try await register(statement: statement, redirectURI: redirectURI)
                registeredNow = true
            }
            guard let credentials = clientCredentials else { throw AccessEnablerError(.notRegistered, "no client credentials") }
            let response = try await send(
                EntitlementHTTPRequest(
                    method: "POST", url: url("/o/client/token"),
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Device-Info": deviceInfo],
                    body: Data(
                        FormCodec.encode(PassAPI.AccessTokenRequest(clientID: credentials.id, clientSecret: credentials.secret).formFields)
                            .utf8)))
            if response.status == 201 || response.status == 200,
                let grant = PassAPI.decode(PassAPI.AccessTokenResponse.self, from: response.body)
            {
                accessToken = (grant.accessToken, now + max(0, min(grant.expiresIn, 31_536_000)) * 1000)
                return grant.accessToken
            }
            if response.status == 401 {
                clientCredentials = nil
                if !registeredNow { continue }
            }
            throw AccessEnablerError(.accessTokenError, "no access token (\(Self.describe(response)))", httpStatus: response.status)
        }
    }

    /// `POST /o/client/register` with the software statement.
    private func register(statement: String, redirectURI: String?) async throws(AccessEnablerError) {
        let request = PassAPI.ClientRegistrationRequest(softwareStatement: statement, redirectURI: redirectURI)
        let response = try await send(
            EntitlementHTTPRequest(
                method: "POST", url: url("/o/client/register"),
                headers: ["Content-Type": "application/json", "X-Device-Info": deviceInfo],
                body: PassAPI.encode(request)))
        guard response.status == 201, let registration = PassAPI.decode(PassAPI.ClientRegistrationResponse.self, from: response.body)
        else {
            throw AccessEnablerError(.notRegistered, "client registration failed (\(Self.describe(response)))", httpStatus: response.status)
        }
        clientCredentials = (registration.clientID, registration.clientSecret)
    }

    /// The status and the service provider's message, for errors.
    static func describe(_ response: EntitlementHTTPResponse) -> String {
        var text = "HTTP \(response.status)"
        if let message = PassAPI.decode(PassAPI.ErrorBody.self, from: response.body)?.text { text += ": " + String(message.prefix(300)) }
        return text
    }

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
