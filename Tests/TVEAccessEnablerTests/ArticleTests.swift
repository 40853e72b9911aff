import Foundation
import Testing
import TVEAccessEnabler
import TVEJSON
import TVEMetadata
import TVESandbox
import TVEServiceProvider

/// Starts the sandbox with the suite's shared keys on the system clock: the clock an app's enabler keeps by default
/// (`AsyncAccessEnabler.Configuration()`), as the articles' code does.
private func withSandbox(
    _ configuration: ServiceProviderConfiguration = .sandbox, _ body: @Sendable (Sandbox) async throws -> Void
) async throws {
    let keys = try #require(SharedKeys.sandbox)
    try await Sandbox.run(configuration: configuration, keys: keys) { sandbox in try await body(sandbox) }
}

/// A new, empty directory for a file token store, under the temporary directory.
private func appSupportDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-article-\(UUID().uuidString)")
}

/// The Swift code of the flow layer's articles, run against the local service provider: the landing page's
/// (`index.md`), the migration article's (`MovingToRESTAPIv2.md`) and the concurrency model's (`ConcurrencyModel.md`).
///
/// The suite is the app of the landing page's code: one instance per test, the `self` that code makes the enabler's
/// delegate. It hands every callback to the sandbox's recording delegate.
@Suite("The flow layer's articles: their code against the local service provider")
final class ArticleTests: EntitlementDelegate {
    let recorder = RecordingDelegate()

    // The landing page's block, verbatim: the formatter would move its line breaks and its trailing comments.
    // swift-format-ignore
    @Test("index.md: the enabler with a file token store sets the requestor, then shows the provider dialog, over REST API v2")
    func landingPageCode() async throws {
        var serviceProviderConfiguration = ServiceProviderConfiguration.sandbox
        serviceProviderConfiguration.requestors[0].id = "my-requestor"
        let appSupport = appSupportDirectory()
        defer { try? FileManager.default.removeItem(at: appSupport) }
        try await withSandbox(serviceProviderConfiguration) { sandbox in
            let statement = sandbox.softwareStatement
            let programmerKey = sandbox.keys.metadataKey
            let serviceProvider = sandbox.url
            // The article's code:
            let enabler = AccessEnabler(softwareStatement: statement, configuration: .init(
                tokenStore: FileTokenStore(directory: appSupport),
                metadataDecryptor: MetadataDecryptor(privateKey: programmerKey)))
            enabler.delegate = self
            enabler.setRequestor("my-requestor", serviceProviders: [serviceProvider])  // over REST API v2 (without serviceProviders: Adobe's production one)
            enabler.getAuthentication()               // → displayProviderDialog(mvpds)
            // What it says: setRequestorComplete(1), then the provider dialog with REST API v2's list (TempPasses too).
            let dialog = try await self.recorder.next("displayProviderDialog") { event -> [String]? in
                if case .providerDialog(let ids) = event { ids } else { nil }
            }
            #expect(dialog == ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"])
            #expect(self.recorder.flow == [.requestorComplete(1), .providerDialog(dialog)])
            #expect(enabler.core.configuration.api == .v2)
            // The tokens, the client registration among them, went to the file token store.
            await enabler.drain()
            let stored = try FileTokenStore(directory: appSupport).load(requestor: "my-requestor")
            #expect(stored?.clientRegistrations?.isEmpty == false)
        }
    }

    // The migration article's block, verbatim: the formatter would move its trailing comment.
    // swift-format-ignore
    @Test("MovingToRESTAPIv2.md: the enabler speaks REST API v2 (v2's MVPD list, TempPasses included); .v1 lists none")
    func migrationArticleCode() async throws {
        let appSupport = appSupportDirectory()
        defer { try? FileManager.default.removeItem(at: appSupport) }
        try await withSandbox { sandbox in
            let statement = sandbox.softwareStatement
            // The article's code:
            var configuration = AsyncAccessEnabler.Configuration(tokenStore: FileTokenStore(directory: appSupport))
            configuration.api = .v2               // the default; .v1 keeps the old API for an app not yet moved
            let enabler = AccessEnabler(softwareStatement: statement, configuration: configuration)
            // What it says: v2, the default, lists REST API v2's MVPDs (the TempPasses are v2's only) ...
            #expect(AsyncAccessEnabler.Configuration().api == .v2)
            enabler.delegate = self.recorder
            enabler.setRequestor(Sandbox.requestor, serviceProviders: [sandbox.url])
            enabler.getAuthentication()
            let dialog = try await self.recorder.next("displayProviderDialog") { event -> [String]? in
                if case .providerDialog(let ids) = event { ids } else { nil }
            }
            #expect(dialog == ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"])
            #expect(self.recorder.flow == [.requestorComplete(1), .providerDialog(dialog)])
            // ... and .v1 keeps the old API, whose configuration lists no TempPass.
            configuration.api = .v1
            configuration.tokenStore = InMemoryTokenStore()
            let v1 = AsyncAccessEnabler(softwareStatement: statement, configuration: configuration)
            let mvpds = try await v1.setRequestor(Sandbox.requestor, serviceProviders: [sandbox.url])
            #expect(mvpds.map(\.id) == ["SandboxCable", "SandboxSSO"])
        }
    }

    @Test("ConcurrencyModel.md: with a synchronous deliver, drain() returns once every callback has arrived, in call order")
    func synchronousDelivery() async throws {
        try await withSandbox { sandbox in
            let core = sandbox.accessEnabler()
            let recorder = RecordingDelegate()
            // The article's code:
            let enabler = AccessEnabler(core: core, deliver: { callback in callback() })
            enabler.delegate = recorder
            enabler.setRequestor(Sandbox.requestor, serviceProviders: [sandbox.url])
            enabler.getAuthentication()
            await enabler.drain()  // every job has run, and with this deliver every callback has arrived
            // What it says: no waiting for the callbacks; the getAuthentication made before setRequestorComplete ran after it.
            #expect(
                recorder.flow == [
                    .requestorComplete(1), .providerDialog(["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"]),
                ])
        }
    }

    // MARK: EntitlementDelegate (the landing page's `self`)

    func setRequestorComplete(_ status: Int) { recorder.setRequestorComplete(status) }
    func setAuthenticationStatus(_ status: Int, errorCode: String) { recorder.setAuthenticationStatus(status, errorCode: errorCode) }
    func displayProviderDialog(_ mvpds: [MVPD]) { recorder.displayProviderDialog(mvpds) }
    func navigateToUrl(_ url: URL) { recorder.navigateToUrl(url) }
    func navigateToUrl(_ url: URL, useSVC: Bool) { recorder.navigateToUrl(url, useSVC: useSVC) }
    func setToken(_ token: String, forResource resource: String) { recorder.setToken(token, forResource: resource) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        recorder.tokenRequestFailed(resource, errorCode: errorCode, errorDescription: errorDescription)
    }
    func preauthorizedResources(_ resources: [String]) { recorder.preauthorizedResources(resources) }
    func selectedProvider(_ mvpd: MVPD?) { recorder.selectedProvider(mvpd) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: MetadataOpcode, andArguments arguments: MetadataRequest) {
        recorder.setMetadataStatus(metadata, encrypted: encrypted, forKey: key, andArguments: arguments)
    }
    func sendTrackingData(_ data: [String], forEventType event: TrackingEventType) { recorder.sendTrackingData(data, forEventType: event) }
}
