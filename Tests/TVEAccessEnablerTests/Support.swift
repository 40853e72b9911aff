import Foundation
import Hummingbird
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEServer
import TVETokens

/// A clock the test moves.
final class TestClock: MediaTokenClock, Sendable {
    private let value: Locked<Int64>
    init(_ milliseconds: Int64 = 1_767_225_600_000) { value = Locked(milliseconds) }
    var nowMilliseconds: Int64 { value.withLock { $0 } }
    func advance(seconds: Int64) { value.withLock { $0 += seconds * 1000 } }
}

/// Records the waits the flow layer asks for, and waits 10 ms of real time for each (so that polling gives a real
/// second screen time to act, without the test taking the asked-for seconds).
final class SleepRecorder: Sendable {
    private let waits = Locked<[Duration]>([])
    var recorded: [Duration] { waits.withLock { $0 } }
    var sleep: @Sendable (Duration) async -> Void {
        { duration in
            self.waits.withLock { $0.append(duration) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

enum SharedKeys {
    static let sandbox: SandboxKeys? = try? SandboxKeys()
}

/// A running local service provider (the sandbox unless told otherwise) and what an app needs to use it.
struct LocalProvider: Sendable {
    let url: URL
    let keys: SandboxKeys
    let clock: TestClock
    let softwareStatement: String

    /// An enabler for this provider, with instant sleeps and the programmer's metadata key.
    func enabler(
        platform: EntitlementPlatform = .iOS, store: any EntitlementTokenStore = InMemoryTokenStore(),
        transport: any EntitlementTransport = URLSessionTransport(timeout: 5), sleeper: SleepRecorder = SleepRecorder()
    ) -> AsyncAccessEnabler {
        AsyncAccessEnabler(
            softwareStatement: softwareStatement,
            configuration: .init(
                transport: transport, tokenStore: store, clock: clock, platform: platform,
                metadataDecryptor: MetadataDecryptorFactory.make(keys.metadataKey), pollingInterval: .milliseconds(50),
                pollingTimeout: .seconds(60),
                sleep: sleeper.sleep))
    }
}

/// Starts the local service provider on an ephemeral port for `body`.
func withLocalProvider(
    _ configuration: ServiceProviderConfiguration = .sandbox, clock: TestClock = TestClock(),
    _ body: @Sendable (LocalProvider) async throws -> Void
) async throws {
    let keys = try #require(SharedKeys.sandbox)
    let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys, clock: clock)
    let router = Router(context: ServerRequestContext.self)
    provider.addRoutes(to: router)
    try await LocalServer.run(router) { url in
        let statement = try SoftwareStatement.issue(
            subject: "test-app", issuedAt: clock.nowMilliseconds / 1000, signingKey: keys.softwareStatementKey)
        try await body(LocalProvider(url: url, keys: keys, clock: clock, softwareStatement: statement.compact))
    }
}

/// The classic login through the async API: select SandboxCable, sign in as viewer in the page, hand the redirect back.
@discardableResult
func logIn(_ core: AsyncAccessEnabler, mvpd: String = "SandboxCable", username: String = "viewer") async throws -> AuthenticationToken {
    guard case .navigate(let url, _) = try await core.selectProvider(mvpd),
        case .redirect(let back) = try await SandboxBrowser().navigate(to: url, username: username, password: "sandbox-password")
    else {
        throw AccessEnablerError(.genericAuthentication, "the sandbox login did not return to the app")
    }
    return try await core.handleExternalURL(back)
}

/// The classic login through the delegate API: setRequestor, getAuthentication, SandboxCable, the page, handleExternalURL.
func logIn(_ enabler: AccessEnabler, _ recorder: Recorder, _ provider: LocalProvider) async throws {
    enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
    enabler.getAuthentication()
    enabler.setSelectedProvider("SandboxCable")
    await enabler.drain()
    try await DelegateFlowTests.completeWebLogin(enabler, recorder)
}
