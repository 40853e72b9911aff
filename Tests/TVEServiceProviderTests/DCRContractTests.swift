import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import Testing
import TVEPassDCR
import TVESandbox
import TVEServiceProvider
import TVETokens

/// The local provider's client registration, read by the client generated from Adobe's DCR file: every answer has the
/// shape the contract gives.
@Suite("Local service provider: Dynamic Client Registration against Adobe's contract")
struct DCRContractTests {
    @Test("register and token through the generated DCR client; a bad statement and a wrong secret in the OAuth error shape")
    func registerAndToken() async throws {
        try await withSandbox { sandbox in
            let url = try #require(URL(string: sandbox.http.base.absoluteString + "/o"))
            let client = Client(serverURL: url, transport: URLSessionTransport())
            let statement = try SoftwareStatement.issue(
                subject: "app", issuedAt: sandbox.clock.nowMilliseconds / 1000, signingKey: sandbox.keys.softwareStatementKey)
            let registered = try await client.processSoftwareStatementUsingPOST(
                headers: .init(xDeviceInfo: "e30="), body: .json(.init(softwareStatement: statement.compact)))
            let application = try registered.created.body.json
            #expect(application.grantTypes == ["client_credentials"])
            #expect(application.scopes == ["api:client:v2"])
            let id = try #require(application.clientId)
            let secret = try #require(application.clientSecret)
            let token = try await client.generateAccessTokenUsingPOST(
                body: .urlEncodedForm(.init(clientId: id, clientSecret: secret, grantType: "client_credentials")))
            let grant = try token.created.body.json
            #expect(grant.tokenType == "bearer")
            #expect(grant.expiresIn == 21_600)
            #expect(grant.accessToken?.isEmpty == false)

            let refused = try await client.processSoftwareStatementUsingPOST(
                headers: .init(xDeviceInfo: "e30="), body: .json(.init(softwareStatement: "not.a.jwt")))
            #expect(try refused.badRequest.body.json.error == "invalid_software_statement")
            let wrong = try await client.generateAccessTokenUsingPOST(
                body: .urlEncodedForm(.init(clientId: id, clientSecret: "guess", grantType: "client_credentials")))
            #expect(try wrong.unauthorized.body.json.error == "invalid_client")
        }
    }
}
