import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import NIOCore
import Testing
import TVECrypto
import TVEPassAPI
import TVESandbox
import TVEServiceProvider
import TVETokens

@Suite("Local service provider")
struct ServiceProviderTests {
    @Test("GET /api/v1/config/{requestor} needs a Bearer token and lists the sandbox MVPDs in Adobe's shape")
    func config() async throws {
        let keys = try #require(SharedKeys.sandbox)
        let provider = try ServiceProvider(configuration: .sandbox, keys: keys.serviceProviderKeys)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        try await LocalServer.run(router) { url in try await self.exercise(url, key: keys.softwareStatementKey) }
    }

    func exercise(_ url: URL, key: RSAPrivateKey) async throws {

        // Register and get a token.
        let statement = try SoftwareStatement.issue(subject: "app-1", issuedAt: 1_700_000_000, signingKey: key).compact
        var register = URLRequest(url: url.appendingPathComponent("o/client/register"))
        register.httpMethod = "POST"
        register.httpBody = try JSONSerialization.data(withJSONObject: ["software_statement": statement])
        register.setValue("application/json", forHTTPHeaderField: "Content-Type")
        register.setValue("e30=", forHTTPHeaderField: "X-Device-Info")
        let client = try JSONSerialization.jsonObject(with: try await URLSession.shared.data(for: register).0) as? [String: Any]
        var tokenRequest = URLRequest(url: url.appendingPathComponent("o/client/token"))
        tokenRequest.httpMethod = "POST"
        tokenRequest.httpBody = Data(
            "client_id=\(client?["client_id"] as? String ?? "")&client_secret=\(client?["client_secret"] as? String ?? "")&grant_type=client_credentials"
                .utf8)
        let token = try JSONSerialization.jsonObject(with: try await URLSession.shared.data(for: tokenRequest).0) as? [String: Any]
        let bearer = "Bearer " + (try #require(token?["access_token"] as? String))

        func get(_ path: String, authorization: String?) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: url.appendingPathComponent(path))
            if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
            let (data, response) = try await URLSession.shared.data(for: request)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            )
        }
        let (status, config) = try await get("api/v1/config/tvekit-sandbox", authorization: bearer)
        #expect(status == 200)
        let mvpds = ((config["requestor"] as? [String: Any])?["mvpds"] as? [String: Any])?["mvpd"] as? [[String: Any]] ?? []
        #expect(mvpds.compactMap { $0["id"] as? String } == ["SandboxCable", "SandboxSSO"])
        #expect(mvpds.last?["boardingStatus"] as? String == "SUPPORTED")
        #expect(mvpds.last?["requiredMetadataFields"] as? [String] == ["userID", "zip"])
        let (unauthorized, error) = try await get("api/v1/config/tvekit-sandbox", authorization: nil)
        #expect(unauthorized == 401 && error["status"] as? Int == 401)
        #expect(try await get("api/v1/config/tvekit-sandbox", authorization: "Bearer forged").0 == 401)
        #expect(try await get("api/v1/config/unknown", authorization: bearer).0 == 400)

        // Second-screen registration codes.
        func send(_ method: String, _ path: String, _ body: String = "", authorization: String? = bearer) async throws -> (
            Int, [String: Any]
        ) {
            var request = URLRequest(url: url.appendingPathComponent(path))
            request.httpMethod = method
            if !body.isEmpty {
                request.httpBody = Data(body.utf8)
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
            let (data, response) = try await URLSession.shared.data(for: request)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            )
        }
        let (created, record) = try await send(
            "POST", "reggie/v1/tvekit-sandbox/regcode", "deviceId=dev-1&device_info=e30%3D&mvpd=SandboxCable")
        #expect(created == 201)
        let code = try #require(record["code"] as? String)
        #expect(code.count == 7 && code.allSatisfy { $0.isUppercase || $0.isNumber })
        #expect(record["mvpd"] as? String == "SandboxCable")
        #expect((record["info"] as? [String: Any])?["deviceId"] as? String == "dev-1")
        #expect((record["expires"] as? Int64 ?? 0) - (record["generated"] as? Int64 ?? 0) == 1_800_000)
        #expect(try await send("GET", "reggie/v1/tvekit-sandbox/regcode/\(code)").1["code"] as? String == code)
        #expect(try await send("GET", "reggie/v1/other/regcode/\(code)").0 == 400)
        #expect(try await send("DELETE", "reggie/v1/tvekit-sandbox/regcode/\(code)").0 == 204)
        #expect(try await send("GET", "reggie/v1/tvekit-sandbox/regcode/\(code)").0 == 404)
        #expect(try await send("POST", "reggie/v1/tvekit-sandbox/regcode", "deviceId=dev-1&device_info=e30%3D&ttl=36001").0 == 400)
        #expect(try await send("POST", "reggie/v1/tvekit-sandbox/regcode", "device_info=e30%3D").0 == 400)
        #expect(try await send("POST", "reggie/v1/unknown/regcode", "deviceId=dev-1&device_info=e30%3D").0 == 400)
        #expect(
            try await send("POST", "reggie/v1/tvekit-sandbox/regcode", "deviceId=dev-1&device_info=e30%3D", authorization: nil).0 == 401)
    }

    @Test("the configuration round-trips through JSON (the --config file format)")
    func configurationJSON() throws {
        let data = try JSONEncoder().encode(ServiceProviderConfiguration.sandbox)
        #expect(try JSONDecoder().decode(ServiceProviderConfiguration.self, from: data) == .sandbox)
    }
}
