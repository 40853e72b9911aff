import Foundation
import Testing
@testable import TVECrypto

@Suite("PEM reading")
struct PEMTests {
    @Test("CRLF line endings and text around the block are accepted")
    func crlfAndSurroundingText() throws {
        let pem = try Fixture.text("rsa2048.spki.pem")
        let crlf =
            "Bag Attributes\r\n    friendlyName: requestor\r\n" + pem.replacingOccurrences(of: "\n", with: "\r\n") + "trailing note\r\n"
        let reference = try RSAPublicKey(pemRepresentation: pem)
        #expect(try RSAPublicKey(pemRepresentation: crlf) == reference)
        let key = try Fixture.text("rsa2048.pkcs8.pem").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try RSAPrivateKey(pemRepresentation: key).publicKey == reference)
    }

    @Test("a file with a certificate and then a key loads both")
    func certificateAndKeyInOneFile() throws {
        let combined = try Fixture.text("leaf.cert.pem") + Fixture.text("leaf.pkcs8.pem")
        let key = try RSAPrivateKey(pemRepresentation: combined)
        let certificate = try X509Certificate(pemRepresentation: combined)
        #expect(key.publicKey == (try RSAPublicKey(certificate: certificate)))
        let contents = try KeyFileContents.inspect(Array(combined.utf8))
        #expect(contents.items.count == 2)
    }

    @Test("inspection loads a 1024-bit public key only with the opt-in (PEM and DER), and never a 1024-bit private key")
    func inspectLegacyPublicKey() throws {
        let pem = try Fixture.bytes("rsa1024.spki.pem")
        #expect(cryptoError { _ = try KeyFileContents.inspect(pem) }?.code == .keyTooSmall)
        let der = try RSAPublicKey(unsafePEMRepresentation: String(decoding: pem, as: UTF8.self)).derRepresentation
        for bytes in [pem, der] {
            let contents = try KeyFileContents.inspect(bytes, allowing1024BitKeys: true)
            guard case .publicKey(let key)? = contents.items.first else {
                Issue.record("no public key in \(contents.items)")
                continue
            }
            #expect(key.keySizeInBits == 1024)
        }
        let privateKey = try Fixture.bytes("rsa1024.pkcs8.pem")
        #expect(cryptoError { _ = try KeyFileContents.inspect(privateKey, allowing1024BitKeys: true) }?.code == .keyTooSmall)
    }

    @Test("the legacy encrypted PEM block is found after other text")
    func legacyEncryptedAfterText() throws {
        let text = "comment line\n" + (try Fixture.text("rsa2048.legacy-encrypted.pem"))
        let key = try RSAPrivateKey(pemRepresentation: text, passphrase: Fixture.keyPassphrase)
        #expect(key.keySizeInBits == 2048)
    }

    @Test(
        "structural errors are reported",
        arguments: [
            ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE", "END line"),
            ("-----BEGIN -----\nAAAA\n-----END -----\n", "label"),
            ("-----BEGIN CERTIFICATE\nAAAA\n", "not closed"),
        ])
    func structuralErrors(text: String, fragment: String) {
        let error = cryptoError { _ = try X509Certificate.certificates(pemRepresentation: text) }
        #expect(error?.code == .malformedCertificate)
        #expect(error?.reason.contains(fragment) == true, "\(String(describing: error))")
    }
}
