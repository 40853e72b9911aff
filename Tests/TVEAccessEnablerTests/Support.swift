import Foundation
import Hummingbird
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
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
    static let sandbox: SandboxKeys? = Fixtures.sandboxKeys.flatMap { keys in
        keys.count == 7
            ? SandboxKeys(
                softwareStatementKey: keys[0], mediaTokenKey: keys[1], identityProviderKey: keys[2], metadataKey: keys[3],
                requestorKey: keys[4], platformIdentityKey: keys[5], serviceTokenKey: keys[6]) : nil
    }
}

/// A running sandbox (its configuration unless told otherwise) on the test's clock.
struct LocalProvider: Sendable {
    let sandbox: Sandbox
    let clock: TestClock
    var url: URL { sandbox.url }
    var keys: SandboxKeys { sandbox.keys }
    var softwareStatement: String { sandbox.softwareStatement }

    /// An enabler for this provider, with instant sleeps and the programmer's metadata key. REST API v1 unless told:
    /// the suites written for v1 check its requests; the v2 suites ask for `.v2`.
    func enabler(
        platform: EntitlementPlatform = .iOS, store: any EntitlementTokenStore = InMemoryTokenStore(),
        transport: any EntitlementTransport = URLSessionTransport(timeout: 30), sleeper: SleepRecorder = SleepRecorder(),
        api: AsyncAccessEnabler.ServiceAPI = .v1
    ) -> AsyncAccessEnabler {
        sandbox.accessEnabler {
            $0.api = api
            $0.transport = transport
            $0.tokenStore = store
            $0.platform = platform
            $0.metadataDecryptor = MetadataDecryptorFactory.make(keys.metadataKey)
            $0.pollingInterval = .milliseconds(50)
            $0.pollingTimeout = .seconds(60)
            $0.sleep = sleeper.sleep
        }
    }
}

/// Starts the sandbox on an ephemeral port for `body`.
func withLocalProvider(
    _ configuration: ServiceProviderConfiguration = .sandbox, clock: TestClock = TestClock(),
    _ body: @Sendable (LocalProvider) async throws -> Void
) async throws {
    let keys = try #require(SharedKeys.sandbox)
    try await Sandbox.run(configuration: configuration, keys: keys, clock: clock) { sandbox in
        try await body(LocalProvider(sandbox: sandbox, clock: clock))
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
