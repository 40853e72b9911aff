import Foundation
import TVECrypto
import TVEJSON
import TVEMetadata
import TVETestSupport
import Testing

/// The code of the article "Decrypting user metadata" (Sources/TVEMetadata/Docs.docc/DecryptingUserMetadata.md),
/// line for line, run against the committed fixtures: the programmer's certificate and its PKCS#12 file.
@Suite("Article: Decrypting user metadata")
struct DecryptingUserMetadataArticleTests {
    /// The programmer's certificate, as registered with Adobe (the leaf certificate; its key is in modern.p12).
    static let certificate = Fixtures.leafCertificate

    static func decryptor() throws -> MetadataDecryptor {
        let bundle = try PKCS12Bundle(
            derRepresentation: Fixtures.bytes("TestVectors/fixtures/modern.p12"), password: Fixtures.pkcs12Password)
        return MetadataDecryptor(pkcs12: bundle)
    }

    @Test("encrypt a document in both encodings, decrypt it with the PKCS#12 key, read typed values")
    func decryptAndRead() throws {
        let certificate = Self.certificate
        let p12Bytes = try Fixtures.bytes("TestVectors/fixtures/modern.p12")
        let password = Fixtures.pkcs12Password

        // Encrypting a document for a test.
        let blocks = try MetadataEncryptor(certificate: certificate)
        let jwe = try MetadataEncryptor(certificate: certificate, encoding: .jwe(.rsaOAEP256, .a256GCM))
        let document = try UserMetadataDocument(
            updated: 1_334_243_471,
            entries: [
                "zip": .encrypted(blocks.encryptValue(.array([.string("12345"), .string("34567")]))),
                "householdID": .encrypted(jwe.encryptValue(.string("hh-1"))),
                "maxRating": .plain(.object(["MPAA": .string("PG-13"), "VCHIP": .string("TV-Y")])),
                "favoriteTeam": .plain(.string("Bears")),
            ])
        let responseBody = Array(document.jsonText.utf8)

        #expect(document.encryptedKeys == ["householdID", "zip"])
        guard case .encrypted(let zipText)? = document.entries["zip"], case .encrypted(let householdText)? = document.entries["householdID"]
        else {
            Issue.record("the document lost its encrypted values")
            return
        }
        #expect(MetadataDecryptor.encoding(of: zipText) == .rsaBlocks)
        #expect(MetadataDecryptor.encoding(of: householdText) == .jwe)

        // Decrypting it.
        let bundle = try PKCS12Bundle(derRepresentation: p12Bytes, password: password)
        let decryptor = MetadataDecryptor(pkcs12: bundle)
        let metadata = try decryptor.decrypt(jsonText: responseBody)

        // Reading typed values.
        let zip = metadata.zip  // ["12345", "34567"]
        let household = metadata.householdID  // "hh-1"
        let ceiling = metadata.maxRating?.mpaa  // "PG-13"
        let team = metadata["favoriteTeam"]  // .string("Bears"), a key TVEKit has no accessor for
        let decrypted = metadata.decryptedKeys  // ["householdID", "zip"]

        #expect(zip == ["12345", "34567"])
        #expect(household == "hh-1")
        #expect(ceiling == "PG-13")
        #expect(metadata.maxRating == MaxRating(mpaa: "PG-13", vchip: "TV-Y", url: nil))
        #expect(team == .string("Bears"))
        #expect(decrypted == ["householdID", "zip"])
        #expect(metadata.updated == 1_334_243_471)
        #expect(metadata.userID == nil)
    }

    @Test("a typed accessor is nil when the value has another type; the raw value stays")
    func accessorOfTheWrongType() throws {
        let decryptor = try Self.decryptor()
        let body = #"{"updated": 1, "data": {"zip": "12345", "hba_status": "yes"}}"#

        let metadata = try decryptor.decrypt(jsonText: Array(body.utf8))
        let typed = metadata.zip  // nil: "zip" is not an array of strings here
        let raw = metadata["zip"]  // .string("12345")

        #expect(typed == nil)
        #expect(raw == .string("12345"))
        #expect(metadata.hbaStatus == nil)
    }

    @Test("a REST v2 attributes document is read, inspected and decrypted")
    func restV2() throws {
        let decryptor = try Self.decryptor()
        let encryptedZip = try MetadataEncryptor(certificate: Self.certificate).encryptValue(.array([.string("12345")]))
        let attributesBody = Array(
            #"{"attributes": {"zip": {"value": "\#(encryptedZip)", "state": "enc"}, "userID": {"value": "u1", "state": "plain"}}}"#.utf8)

        let document = try UserMetadataDocument(jsonText: attributesBody)
        let shape = document.shape  // .restV2
        let pending = document.encryptedKeys  // ["zip"]
        let profile = try decryptor.decrypt(document)
        let updated = profile.updated  // nil: REST v2 has no counter

        #expect(shape == .restV2)
        #expect(pending == ["zip"])
        #expect(profile.zip == ["12345"])
        #expect(profile.userID == "u1")
        #expect(updated == nil)
    }

    @Test("a value encrypted to another key is decryptionFailed, naming the key")
    func errors() throws {
        let decryptor = try Self.decryptor()
        let otherEncryptor = MetadataEncryptor(publicKey: Fixtures.otherKey.publicKey)
        let foreignZip = try otherEncryptor.encryptValue(.string("12345"))
        let foreignBody = Array(#"{"updated": 1, "encrypted": ["zip"], "data": {"zip": "\#(foreignZip)"}}"#.utf8)

        let outcome: String
        do {
            _ = try decryptor.decrypt(jsonText: foreignBody)
            outcome = "decrypted"
        } catch let error as MetadataError {
            outcome = "\(error.code) (\(error.code.number)) for \(error.key ?? "the document")"
        }

        #expect(outcome == "decryptionFailed (3004) for zip")
        do {
            _ = try decryptor.decrypt(jsonText: foreignBody)
            Issue.record("a value under another key decrypted")
        } catch let error as MetadataError {
            #expect(error.code == .decryptionFailed)
            #expect(error.reason == "the value does not decrypt with this private key")
            #expect(!error.description.contains("12345"))
        }
    }

    @Test("JWE RSA1_5 is refused by default and decrypts only with the opt-in")
    func rsa1_5OptIn() throws {
        let bundle = try PKCS12Bundle(
            derRepresentation: Fixtures.bytes("TestVectors/fixtures/modern.p12"), password: Fixtures.pkcs12Password)
        let certificate = Self.certificate
        let decryptor = MetadataDecryptor(pkcs12: bundle)

        let legacyEncryptor = try MetadataEncryptor(certificate: certificate, encoding: .jwe(.rsa1_5, .a128GCM))
        let legacyValue = try legacyEncryptor.encryptValue(.string("hh-1"))
        let lenient = MetadataDecryptor(pkcs12: bundle, options: .init(allowsRSA1_5: true))
        let value = try lenient.decryptValue(legacyValue)  // .string("hh-1"); `decryptor` throws unsupportedAlgorithm

        #expect(value == .string("hh-1"))
        #expect(throws: MetadataError.unsupportedAlgorithm()) { try decryptor.decryptValue(legacyValue) }
    }

    @Test("a plaintext kept in SecureBytes: printed by length, compared and parsed in place")
    func secureBytes() throws {
        let decryptor = try Self.decryptor()
        let encryptedHousehold = try MetadataEncryptor(certificate: Self.certificate).encryptValue(.string("hh-1"))

        let plaintext: SecureBytes = try decryptor.decryptValueBytes(encryptedHousehold)
        let printed = "\(plaintext)"  // "SecureBytes(6 bytes)": the contents never reach a log
        let matches = plaintext == SecureBytes(utf8: #""hh-1""#)  // time depends on the lengths only
        let value = try plaintext.withUnsafeBytes { try JSONValue.parse($0) }  // .string("hh-1"), parsed without a copy

        #expect(printed == "SecureBytes(6 bytes)")
        #expect(matches)
        #expect(value == .string("hh-1"))
    }

    @Test("the limits are refused before anything is decrypted")
    func limits() throws {
        let decryptor = try Self.decryptor()
        #expect(UserMetadataDocument.maximumDocumentBytes == 1_048_576)
        #expect(UserMetadataDocument.maximumEntries == 1024)
        #expect(UserMetadataDocument.maximumCiphertextBytes == 65_536)
        let hugeValue = String(repeating: "A", count: UserMetadataDocument.maximumCiphertextBytes + 1)
        #expect(throws: MetadataError.inputTooLarge()) { try decryptor.decryptValue(hugeValue) }
        #expect(throws: MetadataError.malformedCiphertext()) { try decryptor.decryptValue("AAAA") }
    }
}
