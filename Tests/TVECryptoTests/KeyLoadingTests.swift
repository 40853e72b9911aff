import Foundation
import Testing
@testable import TVECrypto

@Suite("Loading RSA keys")
struct KeyLoadingTests {
    @Test(
        "every public key encoding gives the same key",
        arguments: [
            "rsa2048.spki.pem", "rsa2048.spki.der", "rsa2048.pkcs1-public.pem", "rsa2048.pkcs1-public.der", "ca.cert.pem",
        ])
    func publicKeyEncodings(file: String) throws {
        let reference = try RSAPublicKey(pemRepresentation: Fixture.text("rsa2048.spki.pem"))
        let key = try RSAPublicKey(encodedKeyOrCertificate: Fixture.bytes(file))
        #expect(key == reference)
        #expect(key.keySizeInBits == 2048)
        #expect(try RSAPublicKey(pemRepresentation: key.pemRepresentation) == key)
        #expect(try RSAPublicKey(derRepresentation: key.derRepresentation) == key)
    }

    @Test(
        "every private key encoding gives the same key",
        arguments: [
            ("rsa2048.pkcs8.pem", nil), ("rsa2048.pkcs8.der", nil), ("rsa2048.pkcs1.pem", nil), ("rsa2048.pkcs1.der", nil),
            ("rsa2048.encrypted.pem", Fixture.keyPassphrase), ("rsa2048.encrypted.der", Fixture.keyPassphrase),
            ("rsa2048.legacy-encrypted.pem", Fixture.keyPassphrase),
        ] as [(String, String?)])
    func privateKeyEncodings(file: String, passphrase: String?) throws {
        let reference = try RSAPublicKey(pemRepresentation: Fixture.text("rsa2048.spki.pem"))
        let key = try RSAPrivateKey(encoded: Fixture.bytes(file), passphrase: passphrase)
        #expect(key.publicKey == reference)
        let signature = try key.signature(for: Array("hello".utf8))
        #expect(reference.isValidSignature(signature, for: Array("hello".utf8)))
        // Round trip through the exported PKCS#8 forms.
        #expect(try RSAPrivateKey(derRepresentation: key.pkcs8DERRepresentation).publicKey == reference)
        let pem = String(decoding: [UInt8](try key.pkcs8PEMRepresentation), as: UTF8.self)
        #expect(try RSAPrivateKey(pemRepresentation: pem).publicKey == reference)
    }

    @Test(
        "an encrypted key without a passphrase is passphraseRequired, never a prompt",
        arguments: ["rsa2048.encrypted.pem", "rsa2048.encrypted.der", "rsa2048.legacy-encrypted.pem"])
    func encryptedKeyNeedsPassphrase(file: String) throws {
        let error = cryptoError { _ = try RSAPrivateKey(encoded: Fixture.bytes(file)) }
        #expect(error?.code == .passphraseRequired)
    }

    @Test(
        "a wrong passphrase is wrongPassword and the message does not contain it",
        arguments: ["rsa2048.encrypted.pem", "rsa2048.encrypted.der", "rsa2048.legacy-encrypted.pem"])
    func wrongPassphrase(file: String) throws {
        let secret = "not-the-passphrase-7d1e"
        let error = cryptoError { _ = try RSAPrivateKey(encoded: Fixture.bytes(file), passphrase: secret) }
        #expect(error?.code == .wrongPassword)
        #expect(!(error?.description.contains(secret) ?? true))
    }

    @Test("1024-bit keys are refused unless the caller opts in")
    func smallKeysNeedOptIn() throws {
        let publicPEM = try Fixture.text("rsa1024.spki.pem")
        let privatePEM = try Fixture.text("rsa1024.pkcs8.pem")
        #expect(cryptoError { _ = try RSAPublicKey(pemRepresentation: publicPEM) }?.code == .keyTooSmall)
        #expect(cryptoError { _ = try RSAPrivateKey(pemRepresentation: privatePEM) }?.code == .keyTooSmall)
        let publicKey = try RSAPublicKey(unsafePEMRepresentation: publicPEM)
        let privateKey = try RSAPrivateKey(unsafePEMRepresentation: privatePEM)
        #expect(publicKey.keySizeInBits == 1024)
        #expect(publicKey.isValidSignature(try privateKey.signature(for: [1, 2, 3]), for: [1, 2, 3]))
    }

    @Test(
        "EC and RSA-PSS keys are unsupportedKeyType",
        arguments: [
            "ec-p256.pkcs8.pem", "ec-p256.spki.pem", "ec.cert.pem", "rsa-pss.pkcs8.pem",
        ])
    func wrongKeyTypes(file: String) throws {
        let bytes = try Fixture.bytes(file)
        let error = cryptoError {
            if file.contains("pkcs8") {
                _ = try RSAPrivateKey(encoded: bytes)
            } else {
                _ = try RSAPublicKey(encodedKeyOrCertificate: bytes)
            }
        }
        #expect(error?.code == .unsupportedKeyType, "\(file): \(String(describing: error))")
    }

    @Test("a private key where a public key is expected is a clear malformedKey")
    func privateKeyAsPublicKey() throws {
        let error = cryptoError { _ = try RSAPublicKey(pemRepresentation: Fixture.text("rsa2048.pkcs8.pem")) }
        #expect(error?.code == .malformedKey)
        #expect(error?.reason.contains("private key") == true)
    }

    @Test("generated keys sign and verify")
    func generatedKey() throws {
        let key = try RSAPrivateKey(keySizeInBits: 2048)
        #expect(key.keySizeInBits == 2048)
        #expect(cryptoError { _ = try RSAPrivateKey(keySizeInBits: 1024) }?.code == .invalidParameter)
    }

    @Test("hostileIterationCountIsRefused: an encrypted PKCS#8 key asking for 3,000,000 PBKDF2 iterations")
    func hostileIterationCountIsRefused() throws {
        let error = cryptoError {
            _ = try RSAPrivateKey(pemRepresentation: Fixture.text("rsa2048.huge-iterations.pem"), passphrase: Fixture.keyPassphrase)
        }
        #expect(error?.code == .inputTooLarge)
    }

    @Test(
        "a public key is never accepted as a private key", arguments: ["rsa2048.spki.der", "rsa2048.pkcs1-public.der", "rsa2048.spki.pem"])
    func publicKeyAsPrivateKey(file: String) throws {
        let error = cryptoError { _ = try RSAPrivateKey(encoded: Fixture.bytes(file)) }
        #expect(error?.code == .malformedKey, "\(String(describing: error))")
    }

    @Test("trailing bytes after a DER private key are refused")
    func trailingBytesAfterPrivateKey() throws {
        for file in ["rsa2048.pkcs8.der", "rsa2048.pkcs1.der"] {
            let error = cryptoError { _ = try RSAPrivateKey(derRepresentation: Fixture.bytes(file) + [0x00, 0x00]) }
            #expect(error?.code == .malformedKey, "\(file): \(String(describing: error))")
        }
    }
}
