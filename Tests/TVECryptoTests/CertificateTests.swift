import Foundation
import Testing
@testable import TVECrypto

struct ExpectedCertificate: Decodable {
    let subject: String
    let issuer: String
    let serial: String
    let notBefore: Double
    let notAfter: Double
    let sha256Fingerprint: String
}

@Suite("X.509 certificates")
struct CertificateTests {
    @Test("fields match what openssl reads", arguments: ["leaf", "ca"])
    func fieldsMatchOpenSSL(name: String) throws {
        let expected = try JSONDecoder().decode(ExpectedCertificate.self, from: Data(Fixture.bytes("\(name).cert.json")))
        let certificate = try X509Certificate(pemRepresentation: Fixture.text("\(name).cert.pem"))
        #expect(certificate.subject == expected.subject)
        #expect(certificate.issuer == expected.issuer)
        #expect(certificate.serialNumber == expected.serial)
        #expect(certificate.notValidBefore == Date(timeIntervalSince1970: expected.notBefore))
        #expect(certificate.notValidAfter == Date(timeIntervalSince1970: expected.notAfter))
        #expect(certificate.sha256FingerprintText == expected.sha256Fingerprint)
        #expect(certificate.publicKeyAlgorithm == "RSA")
        #expect(certificate.publicKeySizeInBits == 2048)
        #expect(try X509Certificate(pemRepresentation: certificate.pemRepresentation) == certificate)
    }

    @Test("validity window, inclusive at both ends")
    func validity() throws {
        let certificate = try X509Certificate(derRepresentation: Fixture.bytes("leaf.cert.der"))
        #expect(certificate.isValid(at: certificate.notValidBefore))
        #expect(certificate.isValid(at: certificate.notValidAfter))
        #expect(!certificate.isValid(at: certificate.notValidBefore.addingTimeInterval(-1)))
        #expect(!certificate.isValid(at: certificate.notValidAfter.addingTimeInterval(1)))
    }

    @Test("PEM and DER bundles load in order")
    func bundles() throws {
        let pem = try X509Certificate.certificates(pemRepresentation: Fixture.text("chain.pem"))
        let der = try X509Certificate.certificates(derRepresentation: Fixture.bytes("chain.der"))
        #expect(pem.count == 2)
        #expect(pem == der)
        #expect(pem[0].subject.contains("requestor.example"))
        #expect(pem[1].subject.contains("Test Root"))
        #expect(try X509Certificate.certificates(encoded: Fixture.bytes("chain.der")) == pem)
        // The single-certificate initialiser refuses a bundle instead of silently taking the first.
        #expect(cryptoError { _ = try X509Certificate(pemRepresentation: Fixture.text("chain.pem")) }?.code == .malformedCertificate)
    }

    @Test("the certificate's key verifies a signature made by openssl")
    func publicKeyVerifiesOpenSSLSignature() throws {
        let certificate = try X509Certificate(pemRepresentation: Fixture.text("leaf.cert.pem"))
        let key = try RSAPublicKey(certificate: certificate)
        let signature = try Base64.decode(Fixture.text("message.sig.b64"), options: .ignoringWhitespace)
        #expect(key.isValidSignature(signature, for: try Fixture.bytes("message.txt")))
    }

    @Test("an EC certificate parses, but has no RSA key")
    func ecCertificate() throws {
        let certificate = try X509Certificate(pemRepresentation: Fixture.text("ec.cert.pem"))
        #expect(certificate.publicKeyAlgorithm == "EC")
        #expect(cryptoError { _ = try RSAPublicKey(certificate: certificate) }?.code == .unsupportedKeyType)
    }
}
