import ArgumentParser
import Foundation
import Hummingbird
import TVECrypto
import TVEServer
import TVETokens

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the media-token verification service (POST /verify, GET /health, GET /metrics).",
        discussion: """
        With --verifier-only, serves the verification web service for the given requestors and certificates, one-time
        use on. Logs one line per request (no bodies) and stops cleanly on SIGINT or SIGTERM. The local service provider
        and MVPD identity provider (issue 6) are not built yet: --verifier-only is required for now.
        """
    )

    @Flag(name: .customLong("verifier-only"), help: "Serve only the media-token verification service.")
    var verifierOnly = false

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
        guard verifierOnly else { throw ValidationError("the service provider is not built yet; use --verifier-only") }
        if certificates.isEmpty { throw ValidationError("give at least one --cert") }
        if requestor.isEmpty { throw ValidationError("give at least one --requestor") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if !(0...86_400).contains(skew) { throw ValidationError("--skew must be between 0 and 86400") }
    }

    func run() async throws {
        var keys: [RSAPublicKey] = []
        for path in certificates { keys.append(try RSAPublicKey(encodedKeyOrCertificate: Input.read(path, what: "certificate"))) }
        let service = try VerificationService(trustedKeys: keys, requestorIDs: requestor, clockSkew: .seconds(skew))
        let log = RequestLog()
        let flusher = Task { await log.runFlusher() }
        defer { flusher.cancel() }
        let app = Application(router: service.router(log: log), configuration: .init(address: .hostname(host, port: port)),
                              onServerRunning: { channel in
                                  let bound = channel.localAddress?.port ?? port
                                  Output.progress("verification service listening on http://\(host):\(bound)")
                              })
        try await app.runService()
        log.flush()
    }
}
