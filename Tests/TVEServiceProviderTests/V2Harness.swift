import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession
import Testing
import TVEPassAPI
import TVEPassAPIv2
@testable import TVEServiceProvider

/// A REST API v2 caller of the sandbox: a device (its identifier and information) of a registered app, through the
/// generated client (answers that do not decode as Adobe's file says fail the test) or raw HTTP (for bad input).
struct V2Device: Sendable {
    static let serviceProvider = ProviderHarness.requestor
    static let deviceInfo = PassAPIv2.DeviceInfo(values: [
        "primaryHardwareType": "SetTopBox", "model": "TVEKit Test Box", "vendor": "TVEKit", "osName": "tvOS", "osVendor": "Apple",
        "connectionPort": "443",
    ])

    let sandbox: ProviderHarness
    let bearer: String
    let device: PassAPIv2.DeviceIdentifier

    init(_ sandbox: ProviderHarness, name: String = "device-1", bearer: String? = nil) {
        self.sandbox = sandbox
        self.bearer = bearer ?? sandbox.bearer
        device = PassAPIv2.DeviceIdentifier(bytes: Array(name.utf8))
    }

    /// The generated client, with this device's bearer token.
    var client: Client {
        get throws {
            let url = try #require(URL(string: sandbox.http.base.absoluteString + PassAPIv2.pathPrefix))
            return Client(
                serverURL: url, transport: URLSessionTransport(), middlewares: [Bearer(value: bearer), PassAPIv2.RawHeaderMiddleware()])
        }
    }

    /// The device headers as raw HTTP sends them.
    var headers: [String: String] {
        ["Authorization": bearer, "AP-Device-Identifier": device.header, "X-Device-Info": Self.deviceInfo.header]
    }

    /// A raw v2 call (path after `/api/v2/`), with this device's headers unless `headers` replaces them.
    func raw(
        _ method: String, _ path: String, form: [(String, String)]? = nil, json: String? = nil, headers: [String: String]? = nil
    ) async throws -> HTTPResult {
        if let json {
            var request = URLRequest(url: try #require(URL(string: sandbox.http.base.absoluteString + "/api/v2/" + path)))
            request.httpMethod = method
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            for (name, value) in headers ?? self.headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await sandbox.http.session.data(for: request)
            let http = response as? HTTPURLResponse
            var fields: [String: String] = [:]
            for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)"] = "\(value)" }
            return HTTPResult(status: http?.statusCode ?? 0, headers: fields, body: data)
        }
        return try await sandbox.http.send(method, "api/v2/" + path, form: form, headers: headers ?? self.headers)
    }

    /// `POST sessions` with the given parameters.
    func createSession(mvpd: String? = nil, domainName: String? = "tvekit.test", redirectURL: String? = "adobepass://ios.app")
        async throws -> Components.Schemas.SessionResponse
    {
        let output = try await client.createSessionUsingPOST(
            path: .init(serviceProvider: Self.serviceProvider),
            headers: .init(apDeviceIdentifier: device.header, xDeviceInfo: Self.deviceInfo.header),
            body: .urlEncodedForm(.init(domainName: domainName, mvpd: mvpd, redirectUrl: redirectURL)))
        return try output.ok.body.json
    }

    /// The browser's part of a login for `code`: `authenticate`, the MVPD's login form, the auto-posting form, up to
    /// the first redirect that leaves HTTP. Returns that location (or nil) and the pages.
    func browserLogin(code: String, username: String = "viewer", password: String = "sandbox-password") async throws
        -> (String?, [HTTPResult])
    {
        var pages: [HTTPResult] = []
        var response = try await sandbox.http.send("GET", "api/v2/authenticate/\(Self.serviceProvider)/\(code)")
        var submitted = false
        for _ in 0..<8 {
            pages.append(response)
            if response.status == 302, let location = response.header("Location") {
                guard location.hasPrefix("/") else { return (location, pages) }
                response = try await sandbox.http.send("GET", location)
            } else if response.status == 200, let form = response.form {
                var fields = form.fields
                if !submitted {
                    fields += [("username", username), ("password", password)]
                    submitted = true
                }
                response = try await sandbox.http.send("POST", form.action, form: fields)
            } else {
                return (nil, pages)
            }
        }
        return (nil, pages)
    }

    /// `POST decisions/{kind}/{mvpd}` through the generated client.
    func decisions(_ kind: String, mvpd: String = "SandboxCable", _ resources: [String]) async throws -> [Components.Schemas
        .DecisionResponse]
    {
        let client = try self.client
        let path = (serviceProvider: Self.serviceProvider, mvpd: mvpd)
        if kind == "authorize" {
            let output = try await client.retrieveAuthorizeDecisionsForMvpdUsingPOST(
                path: .init(mvpd: path.mvpd, serviceProvider: path.serviceProvider),
                headers: .init(apDeviceIdentifier: device.header, xDeviceInfo: Self.deviceInfo.header),
                body: .json(.init(resources: resources)))
            return try output.ok.body.json.decisions ?? []
        }
        let output = try await client.retrievePreAuthorizeDecisionsForMvpdUsingPOST1(
            path: .init(mvpd: path.mvpd, serviceProvider: path.serviceProvider),
            headers: .init(apDeviceIdentifier: device.header, xDeviceInfo: Self.deviceInfo.header), body: .json(.init(resources: resources))
        )
        return try output.ok.body.json.decisions ?? []
    }

    /// The device's profiles by MVPD.
    func profiles() async throws -> [String: Components.Schemas.MvpdProfileResponse] {
        let output = try await client.getProfilesUsingGET1(
            path: .init(serviceProvider: Self.serviceProvider),
            headers: .init(apDeviceIdentifier: device.header, xDeviceInfo: Self.deviceInfo.header))
        return try output.ok.body.json.profiles?.additionalProperties ?? [:]
    }

    /// A full second-screen login: a session without an MVPD, resumed with one, the browser login.
    func login(mvpd: String = "SandboxCable") async throws -> String {
        let created = try await createSession(mvpd: nil)
        let code = try #require(created.code)
        let resumed = try await client.resumeSessionUsingPOST(
            path: .init(code: code, serviceProvider: Self.serviceProvider), body: .urlEncodedForm(.init(mvpd: mvpd)))
        #expect(try resumed.ok.body.json.actionName == "authenticate")
        let (location, _) = try await browserLogin(code: code)
        #expect(location == "adobepass://ios.app")
        return code
    }
}

/// Adds `Authorization: Bearer …` to every generated-client request.
struct Bearer: ClientMiddleware {
    let value: String
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = value
        return try await next(request, body, baseURL)
    }
}
