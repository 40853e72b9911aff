import Foundation
import Hummingbird
import NIOCore
import OpenAPIURLSession
import Testing
import TVECrypto
import TVEPassAPIv2
import TVETestSupport
@testable import TVEServiceProvider

/// Every route answers bad input with Adobe's code in Adobe's error shape: never a crash, never a 500.
@Suite("Local service provider: REST API v2 bad input")
struct V2InputTests {
    /// Every route of Adobe's file with a method and a path (after `/api/v2/`) for the sandbox.
    static let routes: [(String, String)] = [
        ("GET", "tvekit-sandbox/configuration"), ("POST", "tvekit-sandbox/sessions"), ("POST", "tvekit-sandbox/sessions/ABCDEFG"),
        ("GET", "tvekit-sandbox/sessions/ABCDEFG"), ("GET", "tvekit-sandbox/profiles"), ("GET", "tvekit-sandbox/profiles/SandboxCable"),
        ("GET", "tvekit-sandbox/profiles/code/ABCDEFG"), ("POST", "tvekit-sandbox/decisions/authorize/SandboxCable"),
        ("POST", "tvekit-sandbox/decisions/preauthorize/SandboxCable"), ("GET", "tvekit-sandbox/logout/SandboxCable"),
        ("POST", "tvekit-sandbox/sessions/sso/Apple"), ("POST", "tvekit-sandbox/profiles/sso/Apple"),
    ]

    /// An error answer in the shape of Adobe's `ErrorInformation`, with `code`.
    static func expectError(_ result: HTTPResult, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result.text)", sourceLocation: sourceLocation)
        #expect(result.json["code"] as? String == code, "\(result.text)", sourceLocation: sourceLocation)
        #expect(result.json["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(result.json["message"] is String, sourceLocation: sourceLocation)
        #expect(result.json["action"] is String, sourceLocation: sourceLocation)
        #expect(result.json["trace"] is String, sourceLocation: sourceLocation)
        #expect(result.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
    }

    @Test("missingOrBadBearer: every route but authenticate answers 401 invalid_access_token_client_application")
    func missingOrBadBearer() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            for (method, path) in Self.routes {
                for bearer in [nil, "Bearer unknown-token", "Basic dXNlcjpwYXNz", "Bearer "] {
                    var headers = tv.headers
                    headers["Authorization"] = bearer
                    let answer = try await tv.raw(method, path, form: method == "POST" ? [] : nil, headers: headers)
                    Self.expectError(answer, 401, "invalid_access_token_client_application")
                }
            }
            // An expired token (6 hours) too.
            sandbox.clock.advance(seconds: 21_601)
            Self.expectError(try await tv.raw("GET", "tvekit-sandbox/profiles"), 401, "invalid_access_token_client_application")
        }
    }

    @Test(
        "badDeviceHeaders: missing or malformed AP-Device-Identifier, and X-Device-Info under the strict switch, with Adobe's codes",
        arguments: [
            ("AP-Device-Identifier", nil as String?, "invalid_header_device_identifier"),
            ("AP-Device-Identifier", "ZGV2aWNl", "invalid_header_device_identifier"),
            ("AP-Device-Identifier", "fingerprint not*base64", "invalid_header_device_identifier"),
            ("AP-Device-Identifier", "fingerprint " + String(repeating: "QUFB", count: 100), "invalid_header_device_identifier"),
            ("X-Device-Info", nil, "invalid_header_device_info"), ("X-Device-Info", "%%%", "invalid_header_device_info"),
            ("X-Device-Info", Data("[1,2]".utf8).base64EncodedString(), "invalid_header_device_info"),
            ("X-Device-Info", Data(#"{"model":"x"}"#.utf8).base64EncodedString(), "invalid_header_device_info"),
            (
                "X-Device-Info", Data((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8).base64EncodedString(),
                "invalid_header_device_info"
            ),
            ("X-Device-Info", String(repeating: "e30=", count: 3000), "invalid_header_device_info"),
            (
                "AP-TempPass-Identity", Data(#"{"email":{"nested":true}}"#.utf8).base64EncodedString(),
                "invalid_header_identity_for_temporary_access"
            ),
        ])
    func badDeviceHeaders(header: String, value: String?, code: String) async throws {
        // Adobe's service completes a missing or partial X-Device-Info from the request; the strict switch holds it to the file.
        var configuration = ServiceProviderConfiguration.sandbox
        configuration.strict = header == "X-Device-Info"
        try await withSandbox(configuration) { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers[header] = value
            for (method, path) in [("GET", "tvekit-sandbox/profiles"), ("POST", "tvekit-sandbox/sessions")] {
                Self.expectError(try await tv.raw(method, path, form: method == "POST" ? [] : nil, headers: headers), 400, code)
            }
        }
    }

    @Test("unknownNames: service provider, MVPD, code, partner, redirect URL")
    func unknownNames() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            Self.expectError(try await tv.raw("GET", "nobody/configuration"), 400, "invalid_parameter_service_provider")
            Self.expectError(try await tv.raw("GET", "tvekit-sandbox/profiles/NoSuchMVPD"), 400, "invalid_parameter_mvpd")
            Self.expectError(
                try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("mvpd", "NoSuchMVPD")]), 400, "invalid_parameter_mvpd")
            Self.expectError(
                try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("redirectUrl", "https://evil.example/")]), 400,
                "invalid_parameter_redirect_url")
            Self.expectError(try await tv.raw("GET", "tvekit-sandbox/sessions/NOPE123"), 400, "invalid_parameter_code")
            Self.expectError(try await tv.raw("GET", "tvekit-sandbox/profiles/code/NOPE123"), 400, "invalid_parameter_code")
            Self.expectError(try await tv.raw("POST", "tvekit-sandbox/sessions/NOPE123", form: []), 400, "invalid_parameter_code")
            let page = try await sandbox.http.send("GET", "api/v2/authenticate/tvekit-sandbox/NOPE123")
            Self.expectError(page, 400, "invalid_parameter_code")
            Self.expectError(
                try await tv.raw("POST", "tvekit-sandbox/decisions/authorize/NoSuchMVPD", json: #"{"resources":["news"]}"#), 400,
                "invalid_parameter_mvpd")
        }
    }

    @Test("badBodies: not JSON, the wrong shape, a huge body")
    func badBodies() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let path = "tvekit-sandbox/decisions/authorize/SandboxCable"
            Self.expectError(try await tv.raw("POST", path, json: "{"), 400, "invalid_parameter_resources")
            Self.expectError(try await tv.raw("POST", path, json: #"{"resources":"news"}"#), 400, "invalid_parameter_resources")
            Self.expectError(try await tv.raw("POST", path, json: #"{"resources":[1]}"#), 400, "invalid_parameter_resources")
            Self.expectError(try await tv.raw("POST", path, json: #"{"resources":["a\u0001"]}"#), 400, "invalid_parameter_resources")
            let huge = #"{"resources":[""# + String(repeating: "a", count: 200_000) + #""]}"#
            Self.expectError(try await tv.raw("POST", path, json: huge), 413, "invalid_parameter_resources")
            let hugeForm = [("mvpd", String(repeating: "a", count: 200_000))]
            Self.expectError(try await tv.raw("POST", "tvekit-sandbox/sessions", form: hugeForm), 413, "invalid_parameter_mvpd")
            let manyFields = Array(repeating: ("x", "1"), count: 300)
            Self.expectError(try await tv.raw("POST", "tvekit-sandbox/sessions", form: manyFields), 400, "invalid_parameter_mvpd")
        }
    }

    @Test(
        "formFieldFloodWithoutFormContentType: 8,000 repeated form keys with no Content-Type, */*, application/* or text/plain are refused before decoding (the runtime's quadratic merge never runs)",
        arguments: [nil, "*/*", "application/*", "text/plain"] as [String?])
    func formFieldFloodWithoutFormContentType(_ contentType: String?) async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            let body = Array(repeating: "x=1", count: 8000).joined(separator: "&")
            var head = "POST /api/v2/tvekit-sandbox/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (name, value) in tv.headers { head += "\(name): \(value)\r\n" }
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "Content-Length: \(body.utf8.count)\r\n\r\n"
            let connection = try RawConnection(port: try #require(sandbox.http.base.port))
            connection.send(head + body)
            let answer = await connection.untilClosed(seconds: 20) ?? ""
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
            #expect(answer.contains("a form carries at most \(APICall.maximumFields) fields"), "\(answer.suffix(300))")
        }
    }

    @Test("requiredHeadersMatchAdobesContract: the gate's table of required device headers is Adobe's file")
    func requiredHeadersMatchAdobesContract() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OpenAPI/adobe/restApiV2.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var required: Set<String> = []
        var operations: Set<String> = []
        for case let (_, methods as [String: Any]) in document["paths"] as? [String: Any] ?? [:] {
            for case let (_, operation as [String: Any]) in methods {
                guard let id = operation["operationId"] as? String else { continue }
                operations.insert(id)
                let parameters = operation["parameters"] as? [[String: Any]] ?? []
                let names = Set(parameters.filter { $0["required"] as? Bool == true }.compactMap { $0["name"] as? String })
                if names.contains("AP-Device-Identifier") {
                    #expect(names.contains("X-Device-Info"), "\(id)")
                    required.insert(id)
                }
            }
        }
        #expect(operations.count == 13)
        #expect(required == V2Gate.requiredDeviceHeaders)
        #expect(operations.contains(V2Gate.browserOperation))
        #expect(Set(V2Gate.parameterCodes.keys).isSubset(of: operations))
    }

    @Test("repeatedContentTypeParameters: a Content-Type whose parameter names repeat ignoring case does not end the server")
    func repeatedContentTypeParameters() async throws {
        try await withSandbox { sandbox in
            let tv = V2Device(sandbox)
            var headers = tv.headers
            headers["Content-Type"] = "application/x-www-form-urlencoded; charset=a; CHARSET=b"
            let answer = try await tv.raw("POST", "tvekit-sandbox/sessions", form: [("domainName", "tvekit.test")], headers: headers)
            #expect(answer.status == 200 || answer.status == 400)
            // The server is still there.
            #expect(try await tv.raw("GET", "tvekit-sandbox/configuration").status == 200)
        }
    }
}

@Suite("Generated client: hostile answers")
struct V2HostileAnswerTests {
    @Test("repeatedContentTypeParametersInAnAnswer: the client with RawHeaderMiddleware survives them")
    func repeatedContentTypeParametersInAnAnswer() async throws {
        let router = Router(context: ServerRequestContext.self)
        router.get("api/v2/:sp/configuration") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8; CHARSET=latin1"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"requestor":{"id":"x"}}"#)))
        }
        try await LocalServer.run(router) { url in
            let base = try #require(URL(string: url.absoluteString + "/api/v2"))
            let client = Client(serverURL: base, transport: URLSessionTransport(), middlewares: [PassAPIv2.RawHeaderMiddleware()])
            let output = try await client.handleRequestUsingGET(path: .init(serviceProvider: "x"))
            #expect(try output.ok.body.json.requestor?.id == "x")
        }
    }
}
