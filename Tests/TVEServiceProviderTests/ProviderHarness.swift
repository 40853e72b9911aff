import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import TVEConcurrency
import Testing
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESandbox
import TVETestSupport
import TVEServiceProvider
import TVETokens

/// A clock the test moves.
final class TestClock: MediaTokenClock, Sendable {
    private let value: Locked<Int64>
    init(_ milliseconds: Int64 = 1_767_225_600_000) { value = Locked(milliseconds) }
    var nowMilliseconds: Int64 { value.withLock { $0 } }
    func advance(seconds: Int64) { value.withLock { $0 += seconds * 1000 } }
}

/// Keys shared by every sandbox test (generating them is the slow part).
enum SharedKeys {
    static let sandbox: SandboxKeys? = Fixtures.sandboxKeys.flatMap { keys in
        keys.count == 7
            ? SandboxKeys(
                softwareStatementKey: keys[0], mediaTokenKey: keys[1], identityProviderKey: keys[2], metadataKey: keys[3],
                requestorKey: keys[4], platformIdentityKey: keys[5], serviceTokenKey: keys[6]) : nil
    }
}

/// An HTTP answer.
struct HTTPResult: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }

    /// The first form of an HTML page: its action and hidden fields, read as the contract reads them.
    var form: (action: String, fields: [(String, String)])? {
        HTMLForm(firstPostFormIn: text).map { form in (form.action, form.hiddenFields.map { ($0.name, $0.value) }) }
    }

    static func capture(_ pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}

/// Refuses every redirect, so that the test sees (and follows) each hop itself.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// A plain HTTP client for the sandbox: form-encoded requests, no automatic redirects.
struct HTTPClient: Sendable {
    let base: URL
    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    static func encode(_ fields: [(String, String)]) -> String { FormCodec.encode(fields) }

    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], form: [(String, String)]? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var text = path.hasPrefix("/") ? base.absoluteString + path : base.absoluteString + "/" + path
        if !query.isEmpty { text += (text.contains("?") ? "&" : "?") + Self.encode(query) }
        var request = URLRequest(url: try #require(URL(string: text)))
        request.httpMethod = method
        if let form {
            request.httpBody = Data(Self.encode(form).utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)"] = "\(value)" }
        return HTTPResult(status: http?.statusCode ?? 0, headers: fields, body: data)
    }
}

/// A running local service provider with a registered app.
struct ProviderHarness: Sendable {
    static let requestor = "tvekit-sandbox"
    let http: HTTPClient
    let keys: SandboxKeys
    let clock: TestClock
    let provider: ServiceProvider
    let bearer: String

    /// The client the service provider keys this app's device state by (its access token's client).
    var client: String { "bearer\u{0}" + (provider.registry.client(forBearer: bearer) ?? "") }

    /// `GET` an API path as the registered app, with `requestor` and `deviceId` added.
    func api(
        _ path: String, device: String = "device-1", _ extra: [(String, String)] = [], method: String = "GET",
        authorization: String? = nil
    ) async throws -> HTTPResult {
        try await http.send(
            method, path, query: [("requestor", Self.requestor), ("deviceId", device)] + extra,
            headers: ["Authorization": authorization ?? bearer])
    }

    /// Creates a registration code for `device`, as the app does before it opens the login page.
    func registrationCode(device: String = "device-1", mvpd: String? = nil) async throws -> String {
        var form = [("deviceId", device), ("device_info", "e30=")]
        if let mvpd { form.append(("mvpd", mvpd)) }
        let created = try await http.send("POST", "reggie/v1/\(Self.requestor)/regcode", form: form, headers: ["Authorization": bearer])
        return try #require(created.json["code"] as? String)
    }

    /// The whole browser login, as a browser does it: `GET /api/v1/authenticate` with a registration code of `device`
    /// (or `regCode`), follow the redirect to the MVPD's login page, submit the form, submit the auto-posting form to
    /// the assertion consumer, and stop at the first redirect that leaves HTTP. Returns that URL (or nil) and every
    /// page seen.
    func browserLogin(
        mvpd: String = "SandboxCable", device: String = "device-1", regCode: String? = nil, username: String = "viewer",
        password: String = "sandbox-password", redirect: String? = "adobepass://ios.app"
    ) async throws -> (String?, [HTTPResult]) {
        var code = regCode ?? ""
        if regCode == nil { code = try await registrationCode(device: device) }
        var query = [
            ("requestor_id", Self.requestor), ("mso_id", mvpd), ("domain_name", "tvekit.test"), ("noflash", "true"), ("reg_code", code),
        ]
        if let redirect { query.append(("redirect_url", redirect)) }
        var pages: [HTTPResult] = []
        var response = try await http.send("GET", "api/v1/authenticate", query: query)
        var submittedLogin = false
        for _ in 0..<8 {
            pages.append(response)
            if response.status == 302, let location = response.header("Location") {
                guard location.hasPrefix("/") || location.hasPrefix("http") else { return (location, pages) }
                let path = location.hasPrefix("/") ? location : String(location.dropFirst(http.base.absoluteString.count))
                response = try await http.send("GET", path)
            } else if response.status == 200 || response.status == 401, let form = response.form {
                var fields = form.fields
                if !submittedLogin || response.status == 401 {
                    if response.status == 401 { return (nil, pages) }
                    fields += [("username", username), ("password", password)]
                    submittedLogin = true
                }
                response = try await http.send("POST", form.action, form: fields)
            } else {
                return (nil, pages)
            }
        }
        return (nil, pages)
    }
}

/// Runs the local service provider on an ephemeral port and registers an app with it for `body`.
func withSandbox(
    _ configuration: ServiceProviderConfiguration = .sandbox, clock: TestClock = TestClock(),
    _ body: @Sendable (ProviderHarness) async throws -> Void
) async throws {
    let keys = try #require(SharedKeys.sandbox)
    let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys, clock: clock)
    let router = Router(context: ServerRequestContext.self)
    provider.addRoutes(to: router)
    try await LocalServer.run(router) { url in
        let bearer = try await registerApp(url, keys: keys, clock: clock)
        try await body(ProviderHarness(http: HTTPClient(base: url), keys: keys, clock: clock, provider: provider, bearer: bearer))
    }
}

/// Registers an app with the software statement of `keys` and returns its `Authorization: Bearer …` value.
func registerApp(_ url: URL, keys: SandboxKeys, clock: TestClock, subject: String = "app") async throws -> String {
    let http = HTTPClient(base: url)
    let statement = try SoftwareStatement.issue(
        subject: subject, issuedAt: clock.nowMilliseconds / 1000, signingKey: keys.softwareStatementKey)
    var request = URLRequest(url: url.appendingPathComponent("o/client/register"))
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: ["software_statement": statement.compact])
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(V2Device.deviceInfo.header, forHTTPHeaderField: "X-Device-Info")
    let client = (try JSONSerialization.jsonObject(with: try await URLSession.shared.data(for: request).0)) as? [String: Any] ?? [:]
    let token = try await http.send(
        "POST", "o/client/token",
        form: [
            ("client_id", client["client_id"] as? String ?? ""),
            ("client_secret", client["client_secret"] as? String ?? ""),
            ("grant_type", "client_credentials"),
        ])
    return "Bearer " + (try #require(token.json["access_token"] as? String))
}
