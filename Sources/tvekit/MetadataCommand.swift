import ArgumentParser
import Foundation
import TVECrypto
import TVEMetadata

struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Decrypt and encrypt Adobe Pass user metadata (RSA blocks or JWE).",
        discussion: """
            decrypt reads the user-metadata documents Adobe Pass sends (REST v1 or v2) with the programmer's metadata \
            key; encrypt makes such a document for a certificate or public key, to test with.

            Example: tvekit metadata decrypt --private-key keys/metadata-private.pem --json metadata.json
            """,
        subcommands: [Decrypt.self, Encrypt.self]
    )

    struct ErrorOutput: Encodable {
        var error: String
        var number: Int
        var key: String?
        var reason: String
    }

    struct Decrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt a user-metadata document: exit 0 and the document, 1 when it does not decrypt or parse, 2 for usage errors.",
            discussion: """
                The document (REST v1 {updated, encrypted, data} or REST v2 attributes) is read from FILE or standard \
                input ('-'). Output: {"updated": n, "data": {key: value, ...}} with --json, one "key: value" line per key \
                otherwise. A decryption or format failure prints {"error": CODE, "reason": ...} (with --json, on standard \
                output) and exits 1. Never decrypt documents from untrusted sources: see the TVEMetadata article "Decrypting user metadata" on Bleichenbacher.

                Give either --private-key (PEM or DER; --passphrase-env for an encrypted key) or --p12 with \
                --password-env. JWE values with alg RSA1_5 are refused unless --allow-rsa1_5.

                Example: tvekit metadata decrypt --p12 programmer.p12 --password-env P12_PASSWORD --json metadata.json
                """
        )

        @OptionGroup var key: KeySourceOptions

        @Flag(name: .customLong("allow-rsa1_5"), help: "Accept JWE values with alg RSA1_5 (refused by default).")
        var allowRSA1_5 = false

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @Argument(help: "The document file, or '-' for standard input.")
        var file: String

        func run() async throws {
            let text = try Input.fileOrStandardInput(file, limit: UserMetadataDocument.maximumDocumentBytes + 1, what: "document")
            let decryptor = MetadataDecryptor(privateKey: try key.load(), options: .init(allowsRSA1_5: allowRSA1_5))
            let metadata: UserMetadata
            do {
                metadata = try decryptor.decrypt(jsonText: text)
            } catch let error as MetadataError {
                let output = ErrorOutput(error: error.code.description, number: error.code.number, key: error.key, reason: error.reason)
                if json {
                    print(try Output.json(output))
                } else {
                    FileHandle.standardError.write(Data("error: \(CLIError.userMessage(for: error) ?? error.reason)\n".utf8))
                }
                throw ExitCode(1)
            }
            if json {
                print(metadata.jsonText)
            } else {
                if let updated = metadata.updated { print("updated: \(updated)") }
                // Keys come from the document: printed as JSON strings, so no control character reaches the terminal.
                for key in metadata.values.keys.sorted() {
                    var line = ""
                    JSONValue.writeString(key, to: &line)
                    let marker = metadata.decryptedKeys.contains(key) ? " (decrypted)" : ""
                    print("\(line)\(marker): \(metadata.values[key]?.jsonText ?? "null")")
                }
            }
        }
    }

    struct Encrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt a plain user-metadata document to a certificate or public key; prints the REST v1 document.",
            discussion: """
                Input: {"updated": n, "encrypted": [keys], "data": {...}} with clear values; the keys listed in "encrypted" \
                are encrypted (all keys when it is absent). Values are encrypted as Base64 RSA PKCS#1 v1.5 blocks, or as \
                compact JWE with --jwe ALG,ENC (ALG: RSA-OAEP, RSA-OAEP-256, RSA1_5; ENC: A128CBC-HS256, A256CBC-HS512, \
                A128GCM, A256GCM).

                Example: tvekit metadata encrypt --cert metadata.cert.pem --jwe RSA-OAEP-256,A256GCM plain.json
                """
        )

        @Option(name: .customLong("cert"), help: "The certificate to encrypt to (PEM or DER).")
        var certificate: String?

        @Option(name: .long, help: "The public key to encrypt to (PEM or DER), or a certificate.")
        var publicKey: String?

        @Option(name: .long, help: "Encrypt as JWE: ALG,ENC, for example RSA-OAEP-256,A256GCM (RSA PKCS#1 v1.5 blocks by default).")
        var jwe: String?

        @Argument(help: "The plain document file, or '-' for standard input.")
        var file: String

        func validate() throws {
            if (certificate == nil) == (publicKey == nil) { throw ValidationError("give exactly one of --cert and --public-key") }
            if let jwe {
                let parts = jwe.split(separator: ",").map(String.init)
                guard parts.count == 2, JWE.KeyAlgorithm(rawValue: parts[0]) != nil, JWE.ContentAlgorithm(rawValue: parts[1]) != nil else {
                    throw ValidationError(
                        "--jwe takes ALG,ENC: ALG one of \(JWE.KeyAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")); ENC one of \(JWE.ContentAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
            }
        }

        func run() async throws {
            let keyFile = certificate ?? publicKey ?? ""
            let key = try RSAPublicKey(encodedKeyOrCertificate: Input.read(keyFile, what: "certificate or public key"))
            var encoding = MetadataEncryptor.Encoding.rsaBlocks(lineLength: nil)
            if let parts = jwe?.split(separator: ",").map(String.init), parts.count == 2,
                let alg = JWE.KeyAlgorithm(rawValue: parts[0]), let enc = JWE.ContentAlgorithm(rawValue: parts[1])
            {
                encoding = .jwe(alg, enc)
            }
            let text = try Input.fileOrStandardInput(file, limit: UserMetadataDocument.maximumDocumentBytes + 1, what: "document")
            print(try MetadataEncryptor(publicKey: key, encoding: encoding).encryptDocument(plainJSONText: text).jsonText)
        }
    }
}
