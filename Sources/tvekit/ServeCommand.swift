import ArgumentParser
import Foundation
import Hummingbird
import TVECrypto
import TVEServer
import TVETokens

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local service provider (sandbox by default) or only the media-token verification service.",
        discussion: """
        Without --verifier-only: the local service provider on loopback with the configuration of --config (JSON) or the
        built-in sandbox. It prints a software statement that apps register with (POST /o/client/register, then
        POST /o/client/token for a Bearer token), and serves GET /api/v1/config/{requestor}, the second-screen
        registration codes, and the verification service for its own media tokens. Authentication, authorization,
        media tokens, metadata and logout are still to come.
        With --verifier-only: the verification web service for the given requestors and certificates, one-time use on.
        Both log one line per request (no bodies) and stop cleanly on SIGINT or SIGTERM.
        """
    )

    @Flag(name: .customLong("verifier-only"), help: "Serve only the media-token verification service.")
    var verifierOnly = false

    @Option(name: .long, help: "The service-provider configuration (JSON); the built-in sandbox by default.")
    var config: String?

    @Option(name: .customLong("cert"), help: "A trusted media-token signing certificate (PEM or DER). Repeat for several.")
    var certificates: [String] = []

    @Option(name: .long, help: "A requestor ID to verify for. Repeat for several.")
    var requestor: [String] = []

    @Option(name: .long, help: "Tolerated clock skew in seconds (0 to 86400).")
    var skew: Int64 = 0

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port = 8080

    func validate() throws {
        if verifierOnly {
            if certificates.isEmpty { throw ValidationError("give at least one --cert") }
            if requestor.isEmpty { throw ValidationError("give at least one --requestor") }
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if !(0...86_400).contains(skew) { throw ValidationError("--skew must be between 0 and 86400") }
    }

    func run() async throws {
        let log = RequestLog()
        let flusher = Task { await log.runFlusher() }
        defer { flusher.cancel() }
        let router: Router<BasicRequestContext>
        if verifierOnly {
            var keys: [RSAPublicKey] = []
            for path in certificates { keys.append(try RSAPublicKey(encodedKeyOrCertificate: Input.read(path, what: "certificate"))) }
            router = try VerificationService(trustedKeys: keys, requestorIDs: requestor, clockSkew: .seconds(skew)).router(log: log)
        } else {
            let configuration: ServiceProviderConfiguration
            if let config {
                do {
                    configuration = try JSONDecoder().decode(ServiceProviderConfiguration.self, from: Data(Input.read(config, what: "configuration")))
                } catch let error as CLIError {
                    throw error
                } catch {
                    throw CLIError(message: "the configuration '\(config)' is not valid JSON of the documented shape")
                }
            } else {
                configuration = .sandbox
            }
            // Fresh keys per run: one signs the software statements apps register with, one the media tokens.
            Output.progress("generating the sandbox keys...")
            let statementKey = try RSAPrivateKey(keySizeInBits: 2048)
            let tokenKey = try RSAPrivateKey(keySizeInBits: 2048)
            let statement = try SoftwareStatement.issue(subject: UUID().uuidString.lowercased(),
                                                        issuedAt: Int64(Date().timeIntervalSince1970), signingKey: statementKey)
            Output.progress("software statement (register with POST /o/client/register): \(statement.compact)")
            router = Router()
            router.middlewares.add(RequestLogMiddleware(log: log))
            ServiceProvider(configuration: configuration, registry: ClientRegistry(statementKeys: [statementKey.publicKey]))
                .addRoutes(to: router)
            try VerificationService(trustedKeys: [tokenKey.publicKey], requestorIDs: configuration.requestors.map(\.id),
                                    clockSkew: .seconds(skew)).addRoutes(to: router)
        }
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)),
                              onServerRunning: { channel in
                                  let bound = channel.localAddress?.port ?? port
                                  Output.progress("\(verifierOnly ? "verification service" : "local service provider") listening on http://\(host):\(bound)")
                              })
        try await app.runService()
        log.flush()
    }
}
