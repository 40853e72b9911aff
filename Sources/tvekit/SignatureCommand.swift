import ArgumentParser
import Foundation
import TVECrypto

struct SignatureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signature",
        abstract: "Sign and verify RSASSA-PKCS1-v1_5 signatures (SHA-256 by default).",
        discussion: """
            verify checks a signature with a public key or certificate; sign makes one with a private key or a PKCS#12 \
            file. The hash is SHA-256 unless --hash names sha384 or sha512.

            Example: tvekit signature sign --private-key requestor.key.pem --in message.txt
            """,
        subcommands: [Verify.self, Sign.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signature: prints 'valid' (exit 0) or 'invalid' (exit 1).",
            discussion: """
                The key file may be a PEM or DER public key (SubjectPublicKeyInfo or PKCS#1) or an X.509 certificate. \
                Whitespace inside the Base64 signature is ignored.

                Example: tvekit signature verify --public-key requestor.cert.pem --signature-base64 "$(cat message.sig.b64)" \
                --in message.txt
                """
        )

        @Option(name: .long, help: "The public key or certificate file (PEM or DER).")
        var publicKey: String

        @Option(name: .customLong("signature-base64"), help: "The signature, standard Base64.")
        var signatureBase64: String

        @Option(name: .customLong("in"), help: "The file whose bytes were signed.")
        var input: String

        @Option(name: .long, help: "The hash: sha256, sha384 or sha512.")
        var hash = "sha256"

        func run() async throws {
            let padding = try Input.hash(hash)
            let key = try RSAPublicKey(encodedKeyOrCertificate: Input.read(publicKey, what: "public key"))
            let message = try Input.read(input, what: "input")
            let signature: [UInt8]
            do {
                signature = try Base64.decode(signatureBase64, options: .ignoringWhitespace)
            } catch let error as TVECryptoError {
                throw CLIError(.invalidInput, "the signature is not valid Base64: \(error.reason)")
            }
            if key.isValidSignature(signature, for: message, padding: padding) {
                print("valid")
            } else {
                print("invalid")
                throw ExitCode(1)
            }
        }
    }

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a file and print the Base64 signature.",
            discussion: """
                Give either --private-key (PEM or DER; --passphrase-env for an encrypted key) or --p12 with --password-env. \
                Secrets are read from environment variables, never from the command line. The Base64 signature is one \
                line unless --wrap.

                Example: tvekit signature sign --p12 requestor.p12 --password-env P12_PASSWORD --in message.txt
                """
        )

        @OptionGroup var key: KeySourceOptions

        @Option(name: .customLong("in"), help: "The file to sign.")
        var input: String

        @Option(name: .long, help: "The hash: sha256, sha384 or sha512.")
        var hash = "sha256"

        @Flag(name: .long, help: "Wrap the Base64 output at 76 columns.")
        var wrap = false

        func run() async throws {
            let padding = try Input.hash(hash)
            let signature = try key.load().signature(for: Input.read(input, what: "input"), padding: padding)
            print(Base64.encode(signature, lineLength: wrap ? 76 : nil))
        }
    }
}
