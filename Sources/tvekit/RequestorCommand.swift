import ArgumentParser
import Foundation
import TVECrypto
import TVETokens

struct RequestorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requestor",
        abstract: "Sign and verify requestor IDs (SHA256withRSA with the programmer's PKCS#12 key).",
        discussion: """
            sign prints the Base64 signed requestor ID of the pre-DCR native SDKs (sign on a server, where the key \
            stays); verify checks one against the certificate of the key that signed it.

            Example: tvekit requestor sign --private-key keys/requestor-private.pem tvekit-sandbox
            """,
        subcommands: [Sign.self, Verify.self]
    )

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the Base64 signed requestor ID.",
            discussion: """
                Give either --private-key (PEM or DER; --passphrase-env for an encrypted key) or --p12 with \
                --password-env. The Base64 is one line unless --wrap.

                Example: tvekit requestor sign --p12 requestor.p12 --password-env P12_PASSWORD tvekit-sandbox
                """)

        @OptionGroup var key: KeySourceOptions

        @Flag(name: .long, help: "Wrap the Base64 at 76 columns.")
        var wrap = false

        @Argument(help: "The requestor ID.")
        var requestorID: String

        func run() async throws {
            print(try SignedRequestorID.sign(requestorID, with: key.load(), wrapped: wrap))
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed requestor ID: prints valid (exit 0) or invalid (exit 1); 2 for malformed input.",
            discussion: """
                --cert takes the certificate (or public key) of the key that signed the requestor ID, PEM or DER.

                Example: tvekit requestor verify --cert requestor.cert.pem --signature "$(cat signed-requestor.b64)" \
                tvekit-sandbox
                """)

        @Option(name: .customLong("cert"), help: "The certificate (or public key) whose key signed it, PEM or DER.")
        var certificate: String

        @Option(name: .long, help: "The Base64 signature (whitespace allowed).")
        var signature: String

        @Argument(help: "The requestor ID.")
        var requestorID: String

        func run() async throws {
            let key = try RSAPublicKey(encodedKeyOrCertificate: Input.read(certificate, what: "certificate"))
            let valid = try SignedRequestorID.isValid(signature, for: requestorID, publicKey: key)
            print(valid ? "valid" : "invalid")
            if !valid { throw ExitCode(1) }
        }
    }
}

struct ClientlessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clientless",
        abstract: "Build and check the HMAC-SHA1 Authorization header of clientless (second-screen) calls.",
        discussion: """
            sign prints the Authorization header value a clientless app sends with each call; verify checks one \
            against the secret. The secret is read from the environment variable that --secret-env names.

            Example: tvekit clientless verify --header "$AUTHORIZATION" --secret-env CLIENTLESS_SECRET
            """,
        subcommands: [Sign.self, Verify.self]
    )

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the Authorization header value.",
            discussion: """
                The nonce is a random UUID and the request time the current time unless --nonce and --time give them \
                (to reproduce a header). The built-in sandbox's public key is sandbox-public-key and its secret \
                sandbox-secret.

                Example: tvekit clientless sign --method GET --requestor tvekit-sandbox --uri /api/v1/authorize \
                --public-key sandbox-public-key --secret-env CLIENTLESS_SECRET
                """)

        @Option(name: .long, help: "The HTTP method (GET, POST, ...).")
        var method: String

        @Option(name: .long, help: "The requestor ID.")
        var requestor: String

        @Option(name: .long, help: "The request path, for example /api/v1/authorize.")
        var uri: String

        @Option(name: .long, help: "The public key string (the tvOS SDK's publicKey).")
        var publicKey: String

        @Option(name: .customLong("secret-env"), help: "The environment variable holding the secret.")
        var secretEnvironment: String

        @Option(name: .long, help: "The nonce (a random UUID by default).")
        var nonce: String?

        @Option(name: .long, help: "The request time in milliseconds since the Unix epoch (now by default).")
        var time: Int64?

        func run() async throws {
            let secret = SecureBytes(utf8: try Input.secret(fromEnvironment: secretEnvironment) ?? "")
            let signer = try ClientlessRequestSigner(requestorID: requestor, publicKey: publicKey, secret: secret)
            if nonce != nil || time != nil {
                print(
                    try signer.authorizationHeader(
                        method: method, requestURI: uri, nonce: nonce ?? UUID().uuidString.lowercased(),
                        requestTime: time ?? SystemMediaTokenClock().nowMilliseconds))
            } else {
                print(try signer.authorizationHeader(method: method, requestURI: uri))
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an Authorization header against the secret: valid (exit 0) or invalid (exit 1); 2 if malformed.",
            discussion: """
                --header takes the whole value, as tvekit clientless sign prints it; the secret, read from the \
                variable that --secret-env names, must not be empty.

                Example: tvekit clientless verify --header "$AUTHORIZATION" --secret-env CLIENTLESS_SECRET
                """)

        @Option(name: .long, help: "The header value.")
        var header: String

        @Option(name: .customLong("secret-env"), help: "The environment variable holding the secret.")
        var secretEnvironment: String

        func run() async throws {
            let authorization = try ClientlessAuthorization(header: header)
            let secret = try Input.secret(fromEnvironment: secretEnvironment) ?? ""
            guard !secret.isEmpty else { throw CLIError(.missingSecret, "the secret in \(secretEnvironment) is empty") }
            let valid = authorization.isValid(secret: SecureBytes(utf8: secret))
            print(valid ? "valid" : "invalid")
            if !valid { throw ExitCode(1) }
        }
    }
}
