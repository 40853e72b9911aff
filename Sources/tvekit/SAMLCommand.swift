import ArgumentParser
import Foundation
import TVECrypto
import TVESAML

struct SAMLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "saml",
        abstract: "Verify and sign SAML 2.0 responses of the single-sign-on path.",
        discussion: """
            verify checks an identity provider's Response as a service provider must (the signature with the IdP \
            certificates only, then issuer, audience, destination, InResponseTo and times); sign signs a Response or \
            Assertion, to test a verifier with.

            Example: tvekit saml sign --private-key idp.key.pem --cert idp.cert.pem --assertion response.xml
            """,
        subcommands: [Verify.self, Sign.self]
    )

    struct Accepted: Encodable {
        var nameID: String
        var attributes: [String: [String]]
        var issuer: String
        var sessionIndex: String?
        var notOnOrAfter: String?
    }

    struct Rejected: Encodable {
        var error: String
        var reason: String
        var failures: [[String: String]]
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a SAML Response: exit 0 and its NameID and attributes, 1 when rejected, 2 for usage errors.",
            discussion: """
                The input (FILE or '-' for standard input) is the raw XML or the Base64 SAMLResponse value (line breaks \
                allowed). The IdP certificates are the only keys accepted; KeyInfo in the response is ignored. On rejection \
                the first failed rule is the error code (for example structure.assertionCount or assertion.audience). \
                Give --request-id, or --allow-idp-initiated for unsolicited responses. --now is the current time by \
                default.

                Example: tvekit saml verify --idp-cert idp.cert.pem --idp-entity-id https://idp.example.com \
                --sp-entity-id https://sp.example.com --acs-url https://sp.example.com/saml/acs --request-id _4f1c2e \
                --json response.xml
                """
        )

        @Option(name: .customLong("idp-cert"), help: "An IdP signing certificate (PEM or DER). Repeat while keys rotate.")
        var idpCertificates: [String] = []

        @Option(name: .customLong("idp-entity-id"), help: "The IdP entity ID (the Issuer).")
        var idpEntityID: String

        @Option(name: .customLong("sp-entity-id"), help: "This SP's entity ID (the Audience).")
        var spEntityID: String

        @Option(name: .customLong("acs-url"), help: "This SP's assertion consumer URL (Destination and Recipient).")
        var acsURL: String

        @Option(name: .customLong("request-id"), help: "The AuthnRequest ID the response must answer (InResponseTo).")
        var requestID: String?

        @Flag(name: .customLong("allow-idp-initiated"), help: "Without --request-id, accept unsolicited responses (no InResponseTo check).")
        var allowIdPInitiated = false

        @Option(name: .long, help: "The time to verify at, ISO 8601 (now by default).")
        var now: String?

        @Option(name: .long, help: "Tolerated clock skew in seconds (0 to 600).")
        var skew: Int = 0

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @Option(
            name: .customLong("repeat"), help: "Verify the same input this many times and report the time per verification (benchmarks).")
        var repetitions: Int = 1

        @Argument(help: "The response file, or '-' for standard input.")
        var file: String

        func validate() throws {
            if idpCertificates.isEmpty { throw ValidationError("give at least one --idp-cert") }
            if requestID == nil, !allowIdPInitiated {
                throw ValidationError("give --request-id, or --allow-idp-initiated for unsolicited responses")
            }
            if !(0...600).contains(skew) { throw ValidationError("--skew must be between 0 and 600") }
            if !(1...10_000_000).contains(repetitions) { throw ValidationError("--repeat must be between 1 and 10000000") }
            if let now, ISO8601DateFormatter().date(from: now) == nil {
                throw ValidationError("--now must be ISO 8601, for example 2026-01-01T00:05:00Z")
            }
        }

        func run() async throws {
            var certificates: [X509Certificate] = []
            for path in idpCertificates {
                certificates += try X509Certificate.certificates(encoded: Input.read(path, what: "IdP certificate"))
            }
            let instant = now.flatMap { ISO8601DateFormatter().date(from: $0) }
            let verifier = try SAMLResponseVerifier(
                configuration: try SAMLVerifierConfiguration(
                    idpCertificates: certificates, idpEntityID: idpEntityID, spEntityID: spEntityID, acsURL: acsURL, requestID: requestID,
                    allowsIdPInitiated: allowIdPInitiated, clockSkew: .seconds(skew), clock: { instant ?? Date() }))
            let input = try Input.fileOrStandardInput(file, limit: SAMLResponseVerifier.maximumInputBytes * 2, what: "SAML response")
            do {
                let clock = ContinuousClock()
                let started = clock.now
                for _ in 1..<repetitions { _ = try verifier.verify(input) }
                let assertion = try verifier.verify(input)
                let elapsed = clock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                if repetitions > 1 {
                    Output.progress(String(format: "%d verifications, %.1f µs each", repetitions, seconds / Double(repetitions) * 1e6))
                }
                var attributes: [String: [String]] = [:]
                for attribute in assertion.attributes { attributes[attribute.name, default: []] += attribute.values }
                let output = Accepted(
                    nameID: assertion.nameID, attributes: attributes, issuer: assertion.issuer,
                    sessionIndex: assertion.sessionIndex, notOnOrAfter: assertion.notOnOrAfterText)
                if json {
                    print(try Output.json(output))
                } else {
                    print("accepted: \(assertion.nameID)")
                    for attribute in assertion.attributes { print("  \(attribute.name): \(attribute.values.joined(separator: ", "))") }
                }
            } catch let error as SAMLError {
                guard error.code == .rejected else { throw error }
                let first = error.failures.first
                if json {
                    print(
                        try Output.json(
                            Rejected(
                                error: first?.rule.code ?? error.code.description, reason: first?.reason ?? "",
                                failures: error.failures.map { ["rule": $0.rule.code, "reason": $0.reason] })))
                } else {
                    print("rejected: " + error.failures.map(\.summary).joined(separator: "; "))
                }
                throw ExitCode(1)
            }
        }
    }

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign an unsigned SAML Response or Assertion (enveloped, exc-c14n, rsa-sha256); prints the XML.",
            discussion: """
                Give either --private-key (PEM or DER; --passphrase-env for an encrypted key) or --p12 with \
                --password-env. Only the root element (the Response, or a bare Assertion) is signed unless --assertion \
                (the Assertion too) or --assertion-only; --cert embeds the certificate in each signature's KeyInfo \
                (none by default). The input is FILE or '-' for standard input.

                Example: tvekit saml sign --private-key idp.key.pem --cert idp.cert.pem --assertion response.xml
                """)

        @OptionGroup var key: KeySourceOptions

        @Option(name: .customLong("cert"), help: "The signing certificate, embedded in KeyInfo (no KeyInfo by default).")
        var certificate: String?

        @Flag(name: .long, help: "Also sign the Assertion inside the Response (it is signed first).")
        var assertion = false

        @Flag(name: .customLong("assertion-only"), help: "Sign only the Assertion inside the Response.")
        var assertionOnly = false

        @Argument(help: "The XML file, or '-' for standard input.")
        var file: String

        func run() async throws {
            let certificate = try self.certificate.map { try X509Certificate.certificates(encoded: Input.read($0, what: "certificate"))[0] }
            let input = try Input.fileOrStandardInput(file, limit: SAMLResponseVerifier.maximumInputBytes, what: "XML")
            var targets: SAMLSigner.Targets = assertionOnly ? .assertion : .root
            if assertion { targets.insert(.assertion) }
            let signed = try SAMLSigner(privateKey: key.load(), certificate: certificate).sign(input, targets: targets)
            FileHandle.standardOutput.write(Data(signed))
        }
    }
}
