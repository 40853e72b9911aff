import Foundation
import Testing
import TVEAccessEnabler
import TVEPassAPIv2
import TVESandbox

/// The generated REST API v2 client over the flow layer's transport.
@Suite("EntitlementClientTransport: the generated v2 client over the app's transport")
struct EntitlementClientTransportTests {
    @Test("the v2 client reaches the local provider through URLSessionTransport; an answer in Adobe's error shape decodes")
    func overURLSession() async throws {
        try await withLocalProvider { provider in
            let base = try #require(URL(string: provider.url.absoluteString + PassAPIv2.pathPrefix))
            let client = Client(
                // This test is about decoding, not deadlines: room for a loaded two-core machine mid-suite.
                serverURL: base, transport: EntitlementClientTransport(URLSessionTransport(timeout: 20)),
                middlewares: [PassAPIv2.RawHeaderMiddleware()])
            let output = try await client.handleRequestUsingGET(path: .init(serviceProvider: "tvekit-sandbox"))
            let error = try output.unauthorized.body.json
            #expect(error.code == "invalid_access_token_client_application")
            #expect(EnhancedErrorMapping.entry(for: error.code ?? "").error == .accessTokenError)
        }
    }

    @Test("a transport that fails or answers garbage gives an error, never a crash")
    func faults() async throws {
        try await withLocalProvider { provider in
            let base = try #require(URL(string: provider.url.absoluteString + PassAPIv2.pathPrefix))
            for fault in [FaultyTransport.Fault.unreachable, .status(200, body: "{not json"), .status(200, body: #"{"requestor": 5}"#)] {
                let client = Client(
                    serverURL: base, transport: EntitlementClientTransport(FaultyTransport([("/api/v2", fault, 1)])),
                    middlewares: [PassAPIv2.RawHeaderMiddleware()])
                await #expect(throws: (any Error).self) {
                    _ = try await client.handleRequestUsingGET(path: .init(serviceProvider: "tvekit-sandbox")).ok.body.json
                }
            }
        }
    }
}
