import Foundation
import Testing
@testable import TVECrypto

/// Hostile and broken inputs: every one is a typed error, never a crash or a hang.
@Suite("Bad input")
struct BadInputTests {
    @Test("empty input is emptyInput everywhere")
    func emptyInput() throws {
        let empty: [UInt8] = []
        #expect(cryptoError { _ = try RSAPublicKey(derRepresentation: empty) }?.code == .emptyInput)
        #expect(cryptoError { _ = try RSAPublicKey(pemRepresentation: "") }?.code == .emptyInput)
        #expect(cryptoError { _ = try RSAPrivateKey(derRepresentation: empty) }?.code == .emptyInput)
        #expect(cryptoError { _ = try RSAPrivateKey(pemRepresentation: "") }?.code == .emptyInput)
        #expect(cryptoError { _ = try X509Certificate(derRepresentation: empty) }?.code == .emptyInput)
        #expect(cryptoError { _ = try PKCS12Bundle(derRepresentation: empty, password: "x") }?.code == .emptyInput)
    }

    @Test("oversized input is inputTooLarge before any parsing")
    func oversizedInput() throws {
        let huge = [UInt8](repeating: 0x30, count: 2 << 20)
        #expect(cryptoError { _ = try RSAPublicKey(derRepresentation: huge) }?.code == .inputTooLarge)
        #expect(cryptoError { _ = try RSAPrivateKey(derRepresentation: huge) }?.code == .inputTooLarge)
        #expect(cryptoError { _ = try X509Certificate(derRepresentation: huge) }?.code == .inputTooLarge)
        #expect(cryptoError { _ = try PKCS12Bundle(derRepresentation: huge, password: "x") }?.code == .inputTooLarge)
    }

    @Test(
        "garbage PEM and DER are malformed",
        arguments: [
            "-----BEGIN PUBLIC KEY-----\nnot base64 !!\n-----END PUBLIC KEY-----\n",
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "just some text",
        ])
    func garbagePEM(text: String) {
        let error = cryptoError { _ = try RSAPublicKey(pemRepresentation: text) }
        #expect(error?.code == .malformedKey, "\(String(describing: error))")
    }

    @Test("every truncation of a DER key, certificate and PKCS#12 file is a typed error")
    func truncations() throws {
        let publicDER = try Fixture.bytes("rsa2048.spki.der")
        let privateDER = try Fixture.bytes("rsa2048.pkcs8.der")
        let certificateDER = try Fixture.bytes("leaf.cert.der")
        let p12 = try Fixture.bytes("modern.p12")
        for length in stride(from: 1, to: publicDER.count, by: 3) {
            #expect(cryptoError { _ = try RSAPublicKey(derRepresentation: publicDER[..<length]) }?.code == .malformedKey)
        }
        for length in stride(from: 1, to: privateDER.count, by: 37) {
            #expect(cryptoError { _ = try RSAPrivateKey(derRepresentation: privateDER[..<length]) }?.code == .malformedKey)
        }
        for length in stride(from: 1, to: certificateDER.count, by: 17) {
            #expect(cryptoError { _ = try X509Certificate(derRepresentation: certificateDER[..<length]) }?.code == .malformedCertificate)
        }
        for length in stride(from: 1, to: p12.count, by: 97) {
            let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: p12[..<length], password: Fixture.pkcs12Password) }
            #expect(error?.code == .malformedPKCS12, "length \(length): \(String(describing: error))")
        }
    }

    @Test("trailing bytes after a DER object are refused")
    func trailingBytes() throws {
        let publicDER = try Fixture.bytes("rsa2048.spki.der") + [0]
        let certificateDER = try Fixture.bytes("leaf.cert.der") + [0x05, 0x00]
        #expect(cryptoError { _ = try RSAPublicKey(derRepresentation: publicDER) }?.code == .malformedKey)
        #expect(cryptoError { _ = try X509Certificate(derRepresentation: certificateDER) }?.code == .malformedCertificate)
    }

    @Test("random bytes never crash a loader")
    func randomBytes() throws {
        for length in [1, 2, 16, 100, 300, 1200] {
            for _ in 0..<20 {
                let bytes = try SecureRandom.bytes(count: length)
                _ = try? RSAPublicKey(derRepresentation: bytes)
                _ = try? RSAPrivateKey(derRepresentation: bytes)
                _ = try? X509Certificate(derRepresentation: bytes)
                _ = try? PKCS12Bundle(derRepresentation: bytes, password: "")
                _ = try? KeyFileContents.inspect(bytes)
            }
        }
    }

    @Test("rejectsFlippedBit: a flipped bit in a DER public key is refused or gives another key", arguments: [0, 1, 9, 30, 200, 290])
    func rejectsFlippedBit(at index: Int) throws {
        var der = try Fixture.bytes("rsa2048.spki.der")
        let original = try RSAPublicKey(derRepresentation: der)
        der[index] ^= 0x01
        if let key = try? RSAPublicKey(derRepresentation: der) {
            #expect(key != original)
        }
    }
}
