import ArgumentParser
import Foundation
import TVECrypto

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Inspect key, certificate and PKCS#12 files.",
        discussion: "Example: tvekit key inspect --json keys/media-token-public.pem",
        subcommands: [Inspect.self]
    )

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe what a key file holds: type, size, subject, fingerprint, validity dates.",
            discussion: """
                FILE is PEM (any number of keys and certificates), DER or PKCS#12. Each item is printed with its kind, \
                algorithm, size and SHA-256 fingerprint (of the certificate's DER, or of the public key for a key); a \
                certificate also with its subject, issuer, serial number and validity dates (and whether it is valid \
                now). A public key of 1024 to 2047 bits (such as Adobe's media-token key of 2015–2017) is described and \
                marked weak: the other commands trust it only with --allow-1024-bit-keys. --password-env names the \
                variable holding a PKCS#12 password or an encrypted key's passphrase.

                Example: tvekit key inspect --password-env P12_PASSWORD requestor.p12
                """
        )

        @Argument(help: "A PEM, DER or PKCS#12 file.")
        var file: String

        @Option(name: .customLong("password-env"), help: "The environment variable holding the PKCS#12 password or key passphrase.")
        var passwordEnvironment: String?

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        struct Entry: Encodable {
            var kind: String
            var algorithm: String
            var bits: Int
            var sha256Fingerprint: String
            var subject: String?
            var issuer: String?
            var serialNumber: String?
            var notValidBefore: String?
            var notValidAfter: String?
            var validNow: Bool?
            /// Under 2048 bits: loaded for inspection only.
            var weak: Bool
        }

        struct Report: Encodable {
            var file: String
            var format: String
            var items: [Entry]
        }

        func run() async throws {
            let contents = try KeyFileContents.inspect(
                Input.read(file, what: "key"),
                password: Input.secret(fromEnvironment: passwordEnvironment), allowing1024BitKeys: true)
            let dates = ISO8601DateFormatter()
            let entries = contents.items.map { item -> Entry in
                switch item {
                case .certificate(let certificate):
                    return Entry(
                        kind: "certificate", algorithm: certificate.publicKeyAlgorithm, bits: certificate.publicKeySizeInBits,
                        sha256Fingerprint: certificate.sha256FingerprintText, subject: certificate.subject,
                        issuer: certificate.issuer, serialNumber: certificate.serialNumber,
                        notValidBefore: dates.string(from: certificate.notValidBefore),
                        notValidAfter: dates.string(from: certificate.notValidAfter), validNow: certificate.isValid(),
                        weak: certificate.publicKeySizeInBits < 2048)
                case .publicKey(let key):
                    return Entry(
                        kind: "public key", algorithm: "RSA", bits: key.keySizeInBits, sha256Fingerprint: key.sha256Fingerprint,
                        weak: key.keySizeInBits < 2048)
                case .privateKey(let key):
                    return Entry(
                        kind: "private key", algorithm: "RSA", bits: key.keySizeInBits,
                        sha256Fingerprint: key.publicKey.sha256Fingerprint, weak: key.keySizeInBits < 2048)
                }
            }
            if json {
                print(try Output.json(Report(file: file, format: contents.format, items: entries)))
                return
            }
            print("\(file): \(contents.format), \(entries.count) item\(entries.count == 1 ? "" : "s")")
            for entry in entries {
                print("- \(entry.kind): \(entry.algorithm) \(entry.bits) bits\(entry.weak ? " (weak: under 2048 bits)" : "")")
                if let subject = entry.subject { print("    subject:     \(subject)") }
                if let issuer = entry.issuer { print("    issuer:      \(issuer)") }
                if let serial = entry.serialNumber { print("    serial:      \(serial)") }
                if let start = entry.notValidBefore, let end = entry.notValidAfter, let now = entry.validNow {
                    print("    valid:       \(start) to \(end) (\(now ? "valid now" : "NOT valid now"))")
                }
                print("    sha256:      \(entry.sha256Fingerprint)\(entry.kind == "private key" ? " (of the public key)" : "")")
            }
        }
    }
}
