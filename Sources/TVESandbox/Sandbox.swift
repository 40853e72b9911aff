import Foundation
import Hummingbird
import TVEAccessEnabler
import TVECrypto
import TVEMetadata
import TVEServiceProvider
import TVETokens

/// A running sandbox: the local service provider and its MVPD identity providers on a loopback port, with keys of its
/// own, and what an app needs to use it — one call starts it all (``run(configuration:keys:clock:_:)``). For tests,
/// `tvekit demo` and developers.
public struct Sandbox: Sendable {
    /// The requestor of the built-in sandbox configuration.
    public static let requestor = "tvekit-sandbox"

    /// The service provider's base URL (`http://127.0.0.1:PORT`).
    public let url: URL
    /// The keys the sandbox runs with, private halves included.
    public let keys: SandboxKeys
    /// The service provider's configuration: its requestors, MVPDs and their users, resources and metadata.
    public let configuration: ServiceProviderConfiguration
    /// The service provider's clock; it also gave ``softwareStatement`` its issue time.
    public let clock: any MediaTokenClock
    /// A software statement signed with ``SandboxKeys/softwareStatementKey``: the app's registration.
    public let softwareStatement: String
    /// The service provider's degraded-access switch (Adobe's operators' switch for an MVPD that is down).
    public let degradedAccess: DegradedAccess

    /// Starts the service provider on a free loopback port, runs `body`, then stops the server gracefully.
    /// - Parameters:
    ///   - configuration: the requestors, MVPDs and decisions the service provider answers with; the built-in
    ///     sandbox configuration by default.
    ///   - keys: the sandbox's keys; seven fresh 2048-bit keys by default (the slow part: share them between runs).
    ///   - clock: the service provider's clock and the issue time of the software statement.
    ///   - body: what to do with the running sandbox; the server stops when it returns or throws.
    public static func run<T: Sendable>(
        configuration: ServiceProviderConfiguration = .sandbox, keys: SandboxKeys? = nil,
        clock: any MediaTokenClock = SystemMediaTokenClock(), _ body: @Sendable (Sandbox) async throws -> T
    ) async throws -> T {
        let keys = try keys ?? SandboxKeys()
        let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys, clock: clock)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        let statement = try SoftwareStatement.issue(
            subject: "tvekit-sandbox-app", issuedAt: clock.nowMilliseconds / 1000, signingKey: keys.softwareStatementKey)
        return try await LocalServer.run(router) { url in
            try await body(
                Sandbox(
                    url: url, keys: keys, configuration: configuration, clock: clock, softwareStatement: statement.compact,
                    degradedAccess: provider.degradedAccess))
        }
    }

    /// An app's flow layer for this sandbox: registered with ``softwareStatement``, the sandbox's clock, the
    /// programmer's metadata key, a 10 s transport and a second-screen poll every 200 ms for up to 30 s. `configure`
    /// changes any of that.
    public func accessEnabler(_ configure: (inout AsyncAccessEnabler.Configuration) -> Void = { _ in }) -> AsyncAccessEnabler {
        var configuration = AsyncAccessEnabler.Configuration(
            transport: URLSessionTransport(timeout: 10), clock: clock, metadataDecryptor: MetadataDecryptor(privateKey: keys.metadataKey),
            pollingInterval: .milliseconds(200), pollingTimeout: .seconds(30))
        configure(&configuration)
        return AsyncAccessEnabler(softwareStatement: softwareStatement, configuration: configuration)
    }
}
