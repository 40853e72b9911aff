import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import NIOCore
import Testing
import TVETestSupport
import TVECrypto
import TVEPassAPI
import TVESandbox
import TVEServiceProvider
import TVETokens

@Suite("Client registration (DCR)")
struct ClientRegistrationTests {
    static let now: Int64 = 1_767_225_600_000

    func send(_ url: URL, _ path: String, body: Data, contentType: String, headers: [String: String] = [:]) async throws -> (
        Int, [String: Any]
    ) {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    @Test("register with a signed software statement, get a token, and the Bearer resolves to the client; every error path")
    func registerAndToken() async throws {
        let key = Fixtures.leafKey
        let registry = ClientRegistry(statementKeys: [key.publicKey], clock: FixedMediaTokenClock(milliseconds: Self.now))
        let router = Router()
        registry.addRoutes(to: router)
        try await LocalServer.run(router) { url in try await self.exercise(url, registry: registry, key: key) }
    }

    func exercise(_ url: URL, registry: ClientRegistry, key: RSAPrivateKey) async throws {

        let statement = try SoftwareStatement.issue(subject: "app-1", issuedAt: 1_700_000_000, signingKey: key).compact
        let body = try JSONSerialization.data(withJSONObject: ["software_statement": statement, "redirect_uri": "adbe.app://done"])
        let (status, client) = try await send(
            url, "o/client/register", body: body, contentType: "application/json", headers: ["X-Device-Info": "eyJ0IjoiaU9TIn0="])
        #expect(status == 201)
        let clientID = try #require(client["client_id"] as? String)
        let secret = try #require(client["client_secret"] as? String)
        #expect(client["grant_types"] as? [String] == ["client_credentials"])
        #expect(client["redirect_uris"] as? [String] == ["adbe.app://done"])

        let form = "client_id=\(clientID)&client_secret=\(secret)&grant_type=client_credentials"
        let (tokenStatus, token) = try await send(
            url, "o/client/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        #expect(tokenStatus == 201)
        let accessToken = try #require(token["access_token"] as? String)
        #expect(token["token_type"] as? String == "bearer" && token["expires_in"] as? Int == 21_600)
        #expect(registry.client(forBearer: "Bearer \(accessToken)") == clientID)
        #expect(registry.client(forBearer: "Bearer nope") == nil)

        // Error paths.
        let other = try SoftwareStatement.issue(subject: "x", issuedAt: 1, signingKey: try RSAPrivateKey(keySizeInBits: 2048)).compact
        let cases: [(String, Data, String, [String: String], Int, String)] = [
            ("o/client/register", Data("{".utf8), "application/json", ["X-Device-Info": "x"], 400, "invalid_request"),
            (
                "o/client/register", try JSONSerialization.data(withJSONObject: ["software_statement": "a.b.c"]), "application/json",
                ["X-Device-Info": "x"], 400, "invalid_software_statement"
            ),
            (
                "o/client/register", try JSONSerialization.data(withJSONObject: ["software_statement": other]), "application/json",
                ["X-Device-Info": "x"], 400, "unapproved_software_statement"
            ),
            (
                "o/client/register",
                try JSONSerialization.data(withJSONObject: ["software_statement": statement, "redirect_uri": "no scheme"]),
                "application/json", ["X-Device-Info": "x"], 400, "invalid_redirect_uri"
            ),
            (
                "o/client/token", Data("client_id=\(clientID)&client_secret=wrong&grant_type=client_credentials".utf8),
                "application/x-www-form-urlencoded", [:], 401, "invalid_client"
            ),
            (
                "o/client/token", Data("client_id=\(clientID)&client_secret=\(secret)&grant_type=password".utf8),
                "application/x-www-form-urlencoded", [:], 400, "unsupported_grant_type"
            ),
            ("o/client/token", Data("client_id=\(clientID)".utf8), "application/x-www-form-urlencoded", [:], 400, "invalid_request"),
        ]
        for (path, data, type, headers, expectedStatus, expectedError) in cases {
            let (status, error) = try await send(url, path, body: data, contentType: type, headers: headers)
            #expect(status == expectedStatus, "\(path) \(expectedError)")
            #expect(error["error"] as? String == expectedError)
        }
    }
}
