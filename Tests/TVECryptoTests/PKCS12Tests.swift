import Foundation
import Testing
@testable import TVECrypto

@Suite("PKCS#12 files")
struct PKCS12Tests {
    @Test("modern and legacy files open and hold key, certificate and chain", arguments: ["modern.p12", "legacy.p12"])
    func opens(file: String) throws {
        let bundle = try PKCS12Bundle(derRepresentation: Fixture.bytes(file), password: Fixture.pkcs12Password)
        let leaf = try X509Certificate(pemRepresentation: Fixture.text("leaf.cert.pem"))
        let root = try X509Certificate(pemRepresentation: Fixture.text("ca.cert.pem"))
        #expect(bundle.certificate == leaf)
        #expect(bundle.chain == [root])
        #expect(bundle.privateKey.publicKey == (try RSAPublicKey(certificate: leaf)))
        let message = Array("requestor-id".utf8)
        #expect(try RSAPublicKey(certificate: leaf).isValidSignature(bundle.privateKey.signature(for: message), for: message))
    }

    @Test("a legacy file loads the legacy provider")
    func legacyProviderIsLoadedOnDemand() throws {
        _ = try PKCS12Bundle(derRepresentation: Fixture.bytes("legacy.p12"), password: Fixture.pkcs12Password)
        #expect(LegacyProvider.isLoaded)
    }

    @Test("a wrong password is wrongPassword, for both kinds of file", arguments: ["modern.p12", "legacy.p12", "empty-password.p12"])
    func wrongPassword(file: String) throws {
        let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: Fixture.bytes(file), password: "wrong-password-91") }
        #expect(error?.code == .wrongPassword)
        #expect(!(error?.description.contains("wrong-password-91") ?? true))
    }

    @Test("an empty password opens a file exported with an empty password")
    func emptyPassword() throws {
        let bundle = try PKCS12Bundle(derRepresentation: Fixture.bytes("empty-password.p12"), password: "")
        #expect(bundle.chain.isEmpty)
        #expect(bundle.privateKey.keySizeInBits == 2048)
    }

    @Test("a truncated file is malformedPKCS12")
    func truncated() throws {
        let error = cryptoError {
            _ = try PKCS12Bundle(derRepresentation: Fixture.bytes("truncated.p12"), password: Fixture.pkcs12Password)
        }
        #expect(error?.code == .malformedPKCS12)
    }

    @Test("a file whose key is EC is unsupportedKeyType")
    func ecKey() throws {
        let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: Fixture.bytes("ec.p12"), password: Fixture.pkcs12Password) }
        #expect(error?.code == .unsupportedKeyType)
    }

    @Test("a password with a NUL byte is refused")
    func nulInPassword() throws {
        let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: Fixture.bytes("modern.p12"), password: "a\u{0}b") }
        #expect(error?.code == .invalidParameter)
    }

    @Test("key inspection reads a PKCS#12 file")
    func inspection() throws {
        let contents = try KeyFileContents.inspect(Fixture.bytes("legacy.p12"), password: Fixture.pkcs12Password)
        #expect(contents.format == "PKCS#12")
        #expect(contents.items.count == 3)
    }

    @Test(
        "hostileIterationCountIsRefused: a file asking for 3,000,000 iterations is refused before any key derivation",
        arguments: ["huge-mac-iterations.p12", "huge-key-iterations.p12", "huge-cert-iterations.p12"])
    func hostileIterationCountIsRefused(file: String) throws {
        let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: Fixture.bytes(file), password: Fixture.pkcs12Password) }
        #expect(error?.code == .inputTooLarge, "\(String(describing: error))")
        #expect(error?.reason.contains("3000000") == true)
        #expect(PKCS12Bundle.maximumPBEIterations == 2_000_000)
    }

    @Test(
        "macStrippedFileIsRefused: files without a MAC are refused, whatever the password",
        arguments: [
            ("nomac.p12", Fixture.pkcs12Password), ("nomac.p12", "wrong"), ("nomac-nokey.p12", Fixture.pkcs12Password),
        ])
    func macStrippedFileIsRefused(file: String, password: String) throws {
        let error = cryptoError { _ = try PKCS12Bundle(derRepresentation: Fixture.bytes(file), password: password) }
        #expect(error?.code == .malformedPKCS12)
        #expect(error?.reason.contains("no MAC") == true)
    }
}
