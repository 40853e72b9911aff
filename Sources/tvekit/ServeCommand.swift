import ArgumentParser
import Foundation
import NIOPosix
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals
import TVECrypto
import TVESandbox
import TVEServiceProvider
import TVETokens
import TVEVerification
import TVEPostgresReplayGuard
import TVEVerificationServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local service provider (sandbox by default) or only the media-token verification service.",
        discussion: """
            Without --verifier-only: the local service provider (Adobe Pass REST API v1 and v2 with client registration) \
            and its MVPD identity providers on loopback (--host 127.0.0.1, --port 8080 by default), with the \
            configuration of --config (JSON) or the built-in sandbox, plus the verification service for its own media \
            tokens. Keys are fresh each run; the app side's material goes to --keys-out (a new private directory by \
            default): software-statement.jwt (register with POST /o/client/register), media-token-public.pem (verify \
            media tokens), metadata-private.pem (decrypt user metadata), requestor-private.pem (sign requestor \
            IDs), platform-identity-private.pem and service-token-private.pem (sign the REST API v2 single-sign-on \
            JWTs of Adobe-Subject-Token and AD-Service-Token: iss "identity.tvekit.test", sub, aud "Adobe", iat, exp at most \
            24 hours later). Sandbox logins: viewer / sandbox-password (SandboxCable), sso-viewer / sandbox-password (SandboxSSO).

            REST API v2 walk (B=http://127.0.0.1:8080): register with POST $B/o/client/register (JSON \
            {"software_statement": …}), get a token with POST $B/o/client/token (client_id, client_secret, \
            grant_type=client_credentials, in the query string or a form body); then, with the headers Authorization: \
            Bearer T and AP-Device-Identifier: fingerprint <Base64 of a device ID> (X-Device-Info, Base64 JSON, is \
            completed from the User-Agent when partial or missing, as Adobe's service does; --strict requires it with \
            primaryHardwareType, model, vendor, osName, osVendor and connectionPort): POST \
            $B/api/v2/tvekit-sandbox/sessions with domainName=adobe.com&redirectUrl=https%3A%2F%2Fadobe.com (Adobe's \
            sample; the sandbox lists adobe.com among its domains) or redirectUrl=/activate/tvekit-sandbox/done gives a code; open \
            $B/activate/tvekit-sandbox in a browser, type the code, pick Sandbox Cable and sign in; \
            GET $B/api/v2/tvekit-sandbox/profiles/code/CODE shows the profile; POST \
            $B/api/v2/tvekit-sandbox/decisions/authorize/SandboxCable with {"resources":["news"]} gives the media token, \
            and tvekit token verify --cert KEYS/media-token-public.pem --requestor tvekit-sandbox --resource news TOKEN \
            checks it.

            With --verifier-only: the verification web service for the given requestors and certificates (tvekit serve \
            --verifier-only --cert adobe.pem --requestor R), one-time use on: \
            in memory (one process), or with --replay-store postgres://user@host:port/db shared by every instance on that \
            database (a fleet; the password from --replay-store-password-env, PGPASSWORD by default, or \
            --replay-store-password-file, never in the URL). With several hosts (a primary and its synchronous standbys, \
            postgres://user@host1:port1,host2:port2/db) the store writes to the one that accepts writes and finds the \
            promoted standby by itself after a failover. When the database cannot answer, verifications fail closed \
            with REPLAY_CHECK_FAILED (HTTP 503). --cert keys follow tvekit token verify's rule: one under 2048 bits is \
            refused unless --allow-1024-bit-keys is given (then trusted with a warning), one under 1024 bits always. \
            The service runs one event-loop thread per core unless --threads says otherwise.

            Both log one line per request (no bodies) and stop cleanly on SIGINT or SIGTERM.

            Example: tvekit serve --keys-out keys
            """
    )

    @Flag(name: .customLong("verifier-only"), help: "Serve only the media-token verification service.")
    var verifierOnly = false

    @Option(name: .long, help: "The service-provider configuration (JSON); the built-in sandbox by default.")
    var config: String?

    @Option(name: .customLong("cert"), help: "A trusted media-token signing certificate or public key (PEM or DER). Repeat for several.")
    var certificates: [String] = []

    @Flag(name: .customLong("allow-1024-bit-keys"), help: "Trust --cert keys of 1024 bits (weak; Adobe's key of 2015-2017 is one).")
    var allow1024BitKeys = false

    @Option(name: .long, help: "A requestor ID to verify for. Repeat for several.")
    var requestor: [String] = []

    @Option(name: .long, help: "Tolerated clock skew in seconds (0 to 86400).")
    var skew: Int64 = 0

    @Option(
        name: .customLong("keys-out"),
        help: "Where to write the app side's keys and software statement (a new private directory by default).")
    var keysOut: String?

    @Option(
        name: .customLong("replay-store"),
        help: """
            Where one-time use is kept (--verifier-only): memory, or postgres://user@host[:port]/database; a primary and \
            its standbys as postgres://user@host1:port1,host2:port2/database (writes go to the one that accepts them).
            """)
    var replayStore = "memory"

    @Option(
        name: .customLong("replay-store-password-env"),
        help: "The environment variable holding the database password.")
    var replayStorePasswordEnvironment = "PGPASSWORD"

    @Option(name: .customLong("replay-store-password-file"), help: "A file holding the database password (instead of the variable).")
    var replayStorePasswordFile: String?

    @Option(name: .customLong("replay-store-timeout-ms"), help: "The longest a replay-store call may take, in ms (1 to 60000).")
    var replayStoreTimeout = 250

    @Option(
        name: .customLong("bearer-secret-file"),
        help: "A file holding a shared secret (16+ bytes) that POST /verify and /metrics then need as a bearer token (--verifier-only).")
    var bearerSecretFile: String?

    @Option(
        name: .customLong("bearer-secret-env"),
        help: "An environment variable holding that secret, instead of --bearer-secret-file (--verifier-only).")
    var bearerSecretEnvironment: String?

    @Option(name: .long, help: "Event-loop threads of the verification service (--verifier-only); one per core by default.")
    var threads: Int?

    @Flag(
        name: .long,
        help: "Hold REST API v2 callers to Adobe's contract file to the letter: X-Device-Info required, complete, at registration too.")
    var strict = false

    @Option(
        name: .long,
        help:
            "Start with degraded access on for this MVPD, as MVPD[:RULE] with Adobe's rule AuthNAll (the default), AuthZAll or AuthZNone (REST API v2: access decided by the rule while the MVPD is down). Repeat for several."
    )
    var degraded: [String] = []

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port = 8080

    func validate() throws {
        if verifierOnly {
            if certificates.isEmpty { throw ValidationError("give at least one --cert") }
            if requestor.isEmpty { throw ValidationError("give at least one --requestor") }
        }
        if !degraded.isEmpty && verifierOnly {
            throw ValidationError("--degraded is an option of the service provider, not of --verifier-only")
        }
        if strict && verifierOnly { throw ValidationError("--strict is an option of the service provider, not of --verifier-only") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256") }
        if replayStore != "memory" && !verifierOnly { throw ValidationError("--replay-store needs --verifier-only") }
        if (bearerSecretFile != nil || bearerSecretEnvironment != nil) && !verifierOnly {
            throw ValidationError("--bearer-secret-file and --bearer-secret-env need --verifier-only")
        }
        if bearerSecretFile != nil && bearerSecretEnvironment != nil {
            throw ValidationError("give --bearer-secret-file or --bearer-secret-env, not both")
        }
        if !(1...60_000).contains(replayStoreTimeout) { throw ValidationError("--replay-store-timeout-ms must be between 1 and 60000") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if !(0...86_400).contains(skew) { throw ValidationError("--skew must be between 0 and 86400") }
    }

    func run() async throws {
        // One event-loop group for the server and the replay store's database client: a request waits for the store
        // on the thread that owns its connection. Shut down after the services stop.
        guard verifierOnly else { return try await run(eventLoopGroup: nil) }
        let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
        do {
            try await run(eventLoopGroup: eventLoopGroup)
        } catch {
            try? await eventLoopGroup.shutdownGracefully()
            throw error
        }
        try await eventLoopGroup.shutdownGracefully()
    }

    private func run(eventLoopGroup: MultiThreadedEventLoopGroup?) async throws {
        // The request log first: a graceful shutdown stops the services in reverse order, so it flushes last.
        let log = RequestLog()
        var services: [any Service] = [log]
        var logger = Logger(label: "tvekit.serve")
        logger.logLevel = .error
        if verifierOnly, let eventLoopGroup {
            let keys = try Input.trustedKeys(certificates, allowing1024BitKeys: allow1024BitKeys)
            let metrics = VerificationMetrics()
            let service: VerificationService
            if replayStore == "memory" {
                service = try VerificationService(
                    trustedKeys: keys, requestorIDs: requestor, clockSkew: .seconds(skew), allowing1024BitKeys: allow1024BitKeys,
                    metrics: metrics)
            } else {
                let store = try postgresReplayGuard(metrics: metrics, eventLoopGroup: eventLoopGroup)
                services.append(store)
                service = try VerificationService(
                    trustedKeys: keys, requestorIDs: requestor, clockSkew: .seconds(skew), replayStore: store,
                    allowing1024BitKeys: allow1024BitKeys, metrics: metrics)
                Output.progress("one-time use kept in \(store.configuration.redactedURL), table \(store.configuration.table)")
            }
            let host = self.host
            services.append(
                VerificationHTTPServer(
                    service: service, host: host, port: port, eventLoopGroup: eventLoopGroup, bearerSecret: try bearerSecret(), log: log,
                    logger: logger, onBound: { Output.progress("verification service listening on http://\(host):\($0)") }))
        } else {
            services.append(try serviceProvider(log: log))
        }
        // SIGTERM and SIGINT stop the server gracefully: the listener closes, open requests finish.
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The bearer secret of --bearer-secret-file or --bearer-secret-env, when one is given.
    private func bearerSecret() throws -> BearerSecret? {
        do {
            if let bearerSecretFile { return try BearerSecret(contentsOfFile: bearerSecretFile) }
            if let bearerSecretEnvironment {
                guard let value = ProcessInfo.processInfo.environment[bearerSecretEnvironment] else {
                    throw CLIError(.missingSecret, "the environment variable \(bearerSecretEnvironment) is not set")
                }
                return try BearerSecret(value)
            }
            return nil
        } catch let error as VerificationServerError {
            throw CLIError(.invalidArgument, error.reason)
        }
    }

    /// The PostgreSQL replay store of --replay-store, its password read from the variable or the file.
    private func postgresReplayGuard(metrics: VerificationMetrics, eventLoopGroup: MultiThreadedEventLoopGroup) throws
        -> PostgresReplayGuard
    {
        var password: String?
        if let replayStorePasswordFile {
            let text = String(decoding: try Input.read(replayStorePasswordFile, what: "password"), as: UTF8.self)
            password = text.trimmingCharacters(in: .newlines)
        } else {
            password = ProcessInfo.processInfo.environment[replayStorePasswordEnvironment]
        }
        do {
            var configuration = try PostgresReplayGuard.Configuration(url: replayStore, password: password)
            configuration.timeout = .milliseconds(replayStoreTimeout)
            return try PostgresReplayGuard(configuration: configuration, eventLoopGroup: eventLoopGroup, metricsFactory: metrics.factory)
        } catch {
            throw CLIError(.invalidArgument, "--replay-store: \(error.reason)")
        }
    }

    /// The local service provider with fresh sandbox keys (the app side's material written out), plus the verification
    /// routes for its own media tokens.
    private func serviceProvider(log: RequestLog) throws -> some Service {
        var configuration: ServiceProviderConfiguration
        if let config {
            do {
                configuration = try JSONDecoder().decode(
                    ServiceProviderConfiguration.self, from: Data(Input.read(config, what: "configuration")))
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError(.invalidInput, "the configuration '\(config)' is not valid JSON of the documented shape")
            }
            if !configuration.problems.isEmpty {
                throw CLIError(
                    .invalidInput, "the configuration '\(config)' is not usable: \(configuration.problems.joined(separator: "; "))")
            }
        } else {
            configuration = .sandbox
        }
        if strict { configuration.strict = true }
        var rules: [(String, DegradedAccess.Mode)] = []
        for value in degraded {
            // MVPD or MVPD:RULE (an MVPD ID with a colon is taken whole).
            let split = value.lastIndex(of: ":").map { (String(value[..<$0]), String(value[value.index(after: $0)...])) }
            let (mvpd, rule) = configuration.mvpds.contains(where: { $0.id == value }) ? (value, "AuthNAll") : split ?? (value, "AuthNAll")
            guard configuration.mvpds.contains(where: { $0.id == mvpd }), let mode = DegradedAccess.Mode(rawValue: rule) else {
                throw CLIError(
                    .invalidArgument,
                    "--degraded: no MVPD '\(mvpd)' in the configuration, or '\(rule)' is not AuthNAll, AuthZAll or AuthZNone")
            }
            rules.append((mvpd, mode))
        }
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            Output.progress(
                "warning: the sandbox's passwords and clientless secrets are public; serving it beyond loopback (\(host)) exposes it")
        }
        Output.progress("generating the sandbox keys...")
        let keys = try SandboxKeys()
        let statement = try SoftwareStatement.issue(
            subject: UUID().uuidString.lowercased(), issuedAt: Int64(Date().timeIntervalSince1970), signingKey: keys.softwareStatementKey)
        let directory: String
        do {
            directory = try keys.writeAppSide(softwareStatement: statement.compact, to: keysOut)
        } catch {
            throw CLIError(.unwritableOutput, "--keys-out: \(error.reason)")
        }
        Output.progress("app-side keys and software statement in \(directory)")
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(RequestLogMiddleware(log: log))
        let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys)
        for (mvpd, mode) in rules { provider.degradedAccess.begin(mvpd: mvpd, mode: mode) }
        provider.addRoutes(to: router)
        try VerificationService(
            trustedKeys: [keys.mediaTokenKey.publicKey], requestorIDs: configuration.requestors.map(\.id), clockSkew: .seconds(skew)
        ).addRoutes(to: router)
        let host = self.host
        let port = self.port
        var quiet = Logger(label: "tvekit.serve")
        quiet.logLevel = .error
        return Application(
            router: router, server: LocalServer.http1(), configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                Output.progress("local service provider listening on http://\(host):\(channel.localAddress?.port ?? port)")
            }, logger: quiet)
    }
}
