import Foundation
import TVEPassAPI
import TVETokens

/// The app's Dynamic Client Registration with one service provider and the access token it gives, for both REST APIs:
/// registers once with the software statement, asks for an access token and reuses it until a minute before it
/// expires; both are kept in the token store (``ClientRegistration``), so that a later launch reuses them.
///
/// Concurrent callers share one registration and one token request. A 429 on either is waited out as ``Throttling``
/// says. Credentials the service provider no longer knows (401 on the token request: a registration kept from an earlier
/// launch, revoked since) are dropped and the client registers again, once.
actor ClientCredentials {
    let baseURL: URL
    private let statement: String
    private let redirectURI: String?
    private let transport: any EntitlementTransport
    private let clock: any MediaTokenClock
    private let sleep: @Sendable (Duration) async -> Void
    /// `X-Device-Info` of the registration and token requests (none: not sent).
    private var deviceInfo: String?
    /// The registration, with the access token once there is one.
    private(set) var registration: ClientRegistration?
    private var inFlight: Task<Result<String, AccessEnablerError>, Never>?

    init(
        baseURL: URL, softwareStatement: String, redirectURI: String?, transport: any EntitlementTransport, clock: any MediaTokenClock,
        sleep: @escaping @Sendable (Duration) async -> Void, deviceInfo: String?, stored: ClientRegistration?
    ) {
        self.baseURL = baseURL
        statement = softwareStatement
        self.redirectURI = redirectURI
        self.transport = transport
        self.clock = clock
        self.sleep = sleep
        self.deviceInfo = deviceInfo
        registration = stored
    }

    /// The `X-Device-Info` of later registration and token requests.
    func set(deviceInfo: String?) { self.deviceInfo = deviceInfo }

    /// Drops the access token (the service provider answered 401): the next call gets a new one.
    func invalidateAccessToken() {
        registration?.accessToken = nil
        registration?.accessTokenExpires = nil
    }

    /// The Bearer access token: the stored one while it has more than a minute left, else a new one.
    func bearerToken() async throws(AccessEnablerError) -> String {
        if let registration, let token = registration.accessToken, let expires = registration.accessTokenExpires,
            expires - 60_000 > clock.nowMilliseconds
        {
            return token
        }
        if let inFlight { return try await inFlight.value.get() }
        let task = Task { () -> Result<String, AccessEnablerError> in
            do throws(AccessEnablerError) { return .success(try await self.fetchToken()) } catch { return .failure(error) }
        }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return try result.get()
    }

    private func fetchToken() async throws(AccessEnablerError) -> String {
        var registeredNow = false
        while true {
            if registration == nil {
                try await register()
                registeredNow = true
            }
            guard let credentials = registration else { throw AccessEnablerError(.notRegistered, "no client credentials") }
            let now = clock.nowMilliseconds
            var headers = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
            headers["X-Device-Info"] = deviceInfo
            let form = PassAPI.AccessTokenRequest(clientID: credentials.clientID, clientSecret: credentials.clientSecret).formFields
            let response = try await send(
                EntitlementHTTPRequest(
                    method: "POST", url: url("/o/client/token"), headers: headers, body: Data(FormCodec.encode(form).utf8)),
                "the access token request")
            if response.status == 201 || response.status == 200,
                let grant = PassAPI.decode(PassAPI.AccessTokenResponse.self, from: response.body), !grant.accessToken.isEmpty,
                grant.accessToken.utf8.count <= 8192
            {
                registration?.accessToken = grant.accessToken
                registration?.accessTokenExpires = now + max(0, min(grant.expiresIn, 31_536_000)) * 1000
                return grant.accessToken
            }
            if response.status == 401 {
                registration = nil
                if !registeredNow { continue }
            }
            throw AccessEnablerError(
                .accessTokenError, "no access token (\(ServiceProviderAnswer.describe(response)))", httpStatus: response.status)
        }
    }

    /// `POST /o/client/register` with the software statement.
    private func register() async throws(AccessEnablerError) {
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        headers["X-Device-Info"] = deviceInfo
        let request = PassAPI.ClientRegistrationRequest(softwareStatement: statement, redirectURI: redirectURI)
        let response = try await send(
            EntitlementHTTPRequest(method: "POST", url: url("/o/client/register"), headers: headers, body: PassAPI.encode(request)),
            "client registration")
        guard response.status == 201 || response.status == 200,
            let answer = PassAPI.decode(PassAPI.ClientRegistrationResponse.self, from: response.body),
            !answer.clientID.isEmpty, answer.clientID.utf8.count <= 1024, answer.clientSecret.utf8.count <= 1024
        else {
            throw AccessEnablerError(
                .notRegistered, "client registration failed (\(ServiceProviderAnswer.describe(response)))", httpStatus: response.status)
        }
        registration = ClientRegistration(clientID: answer.clientID, clientSecret: answer.clientSecret)
    }

    private func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString.trimmingCharacters(in: ["/"]) + path) ?? baseURL
    }

    /// Sends `request`, waiting out 429 answers.
    private func send(_ request: EntitlementHTTPRequest, _ what: String) async throws(AccessEnablerError) -> EntitlementHTTPResponse {
        var throttling = Throttling()
        while true {
            let response = try await ServiceProviderAnswer.send(request, through: transport, host: baseURL.host)
            guard response.status == 429 else { return response }
            guard let wait = throttling.wait(retryAfter: response.header("Retry-After"), now: clock.nowMilliseconds) else {
                throw throttling.error(what)
            }
            await sleep(wait)
        }
    }
}
