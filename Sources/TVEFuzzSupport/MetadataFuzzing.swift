import Foundation
import TVECrypto
import TVEMetadata
import TVETestSupport

/// The body of the user-metadata fuzzer (`Fuzz/FuzzMetadata`), shared with the test suite, which replays the
/// regression inputs and the seed corpus through it. This target is not a product: the fixture key it loads from
/// `TestVectors/fixtures` never ships in a library.
///
/// Each input is read three ways: as JSON, as a metadata document (decrypted with a fixed test key when it
/// parses), and as one encrypted value. Besides "never crash", it checks invariants and traps when one breaks, so
/// that libFuzzer reports it: JSON and documents survive serialization and re-parsing; every failure is a
/// ``MetadataError``; a decrypted document has exactly the document's keys, its plain values unchanged.
public enum MetadataFuzzing {
    /// The committed throw-away fixture key `TestVectors/fixtures/leaf.pkcs8.pem`, so that the seed corpus (made
    /// from the vectors, which are encrypted to it) reaches the decryption paths. Never use it for anything else.
    static let fixtureKeyPEM = Fixtures.load("TestVectors/fixtures/leaf.pkcs8.pem") { $0 }

    /// The fixture certificate of the same key (`TestVectors/fixtures/leaf.cert.pem`).
    static let fixtureCertificatePEM = Fixtures.load("TestVectors/fixtures/leaf.cert.pem") { $0 }

    /// The decryptor the fuzzer uses (RSA1_5 allowed, to reach every path).
    public static let decryptor: MetadataDecryptor? = {
        guard let key = try? RSAPrivateKey(pemRepresentation: fixtureKeyPEM) else { return nil }
        return MetadataDecryptor(privateKey: key, options: .init(allowsRSA1_5: true))
    }()

    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ data: UnsafeRawBufferPointer) {
        if let value = try? JSONValue.parse(data) {
            check(JSONValue(jsonText: Array(value.jsonText.utf8)) == value, "JSON does not survive a round trip")
        }
        let document: UserMetadataDocument
        do {
            document = try UserMetadataDocument(jsonText: data)
        } catch {
            check(error is MetadataError, "a document error that is not a MetadataError")
            runValue(data)
            return
        }
        if document.shape == .restV1 {
            let again = try? UserMetadataDocument(jsonText: Array(document.jsonText.utf8))
            check(again == document, "a REST v1 document does not survive a round trip")
        }
        guard let decryptor else { return }
        do {
            let metadata = try decryptor.decrypt(document)
            check(Set(metadata.values.keys) == Set(document.entries.keys), "decryption changed the set of keys")
            check(metadata.decryptedKeys == document.encryptedKeys, "decryptedKeys differs from the encrypted keys")
            for (key, entry) in document.entries {
                if case .plain(let value) = entry { check(metadata.values[key] == value, "a plain value changed") }
            }
        } catch let error as MetadataError {
            check(error.key != nil, "a value error without its key")
        } catch {
            check(false, "a decryption error that is not a MetadataError")
        }
    }

    private static func runValue(_ data: UnsafeRawBufferPointer) {
        guard data.count <= UserMetadataDocument.maximumCiphertextBytes, let text = String(validating: data, as: UTF8.self),
            let decryptor
        else { return }
        do {
            _ = try decryptor.decryptValue(text)
        } catch let error as MetadataError {
            if error.code == .decryptionFailed { check(error.reason == MetadataError.decryptionFailed().reason, "decryptionFailed varies") }
        } catch {
            check(false, "a value error that is not a MetadataError")
        }
    }

    @inline(__always)
    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            // Reached only when TVEMetadata itself is wrong; the fuzzer needs a crash to report it.
            preconditionFailure("MetadataFuzzing invariant broken: \(message())")
        }
    }
}
