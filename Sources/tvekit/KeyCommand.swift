import ArgumentParser
import Foundation
import TVECrypto

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Inspect key, certificate and PKCS#12 files.",
        subcommands: [Inspect.self]
    )

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe what a key file holds: type, size, subject, fingerprint, validity dates."
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
        }

        struct Report: Encodable {
            var file: String
            var format: String
            var items: [Entry]
        }

        func run() async throws {
            let contents = try KeyFileContents.inspect(
                Input.read(file, what: "key"),
                password: Input.secret(fromEnvironment: passwordEnvironment))
            let dates = ISO8601DateFormatter()
            let entries = contents.items.map { item -> Entry in
                switch item {
                case .certificate(let certificate):
                    return Entry(
                        kind: "certificate", algorithm: certificate.publicKeyAlgorithm, bits: certificate.publicKeySizeInBits,
                        sha256Fingerprint: certificate.sha256FingerprintText, subject: certificate.subject,
                        issuer: certificate.issuer, serialNumber: certificate.serialNumber,
                        notValidBefore: dates.string(from: certificate.notValidBefore),
                        notValidAfter: dates.string(from: certificate.notValidAfter), validNow: certificate.isValid())
                case .publicKey(let key):
                    return Entry(kind: "public key", algorithm: "RSA", bits: key.keySizeInBits, sha256Fingerprint: key.sha256Fingerprint)
                case .privateKey(let key):
                    return Entry(
                        kind: "private key", algorithm: "RSA", bits: key.keySizeInBits,
                        sha256Fingerprint: key.publicKey.sha256Fingerprint)
                }
            }
            if json {
                print(try Output.json(Report(file: file, format: contents.format, items: entries)))
                return
            }
            print("\(file): \(contents.format), \(entries.count) item\(entries.count == 1 ? "" : "s")")
            for entry in entries {
                print("- \(entry.kind): \(entry.algorithm) \(entry.bits) bits")
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
