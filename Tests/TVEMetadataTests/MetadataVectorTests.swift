import Foundation
import Testing
import TVECrypto
@testable import TVEMetadata

/// The vectors of TestVectors/user-metadata (schema in its README). RSA blocks come from the `cryptography` package
/// and JWE values from `jwcrypto`: implementations independent of this one.
struct MetadataVectorFile: Decodable {
    struct Key: Decodable {
        let privateKeyPem: String
    }
    struct Repeat: Decodable {
        let prefix: String
        let `repeat`: String
        let count: Int
        let suffix: String
    }
    struct Expected: Decodable, Sendable {
        let updated: Int64?
        let data: [String: JSONValue]
    }
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let `class`: String
        let comment: String
        let key: String
        let allowRSA1_5: Bool?
        let document: JSONValue?
        let documentText: String?
        let documentTextRepeat: Repeat?
        let expected: Expected?
        let error: String?

        var testDescription: String { "#\(id) \(`class`): \(comment)" }

        var text: [UInt8] {
            if let document { return Array(document.jsonText.utf8) }
            if let documentText { return Array(documentText.utf8) }
            guard let spec = documentTextRepeat else { return [] }
            var bytes = Array(spec.prefix.utf8)
            let unit = Array(spec.repeat.utf8)
            bytes.reserveCapacity(bytes.count + unit.count * spec.count + spec.suffix.utf8.count)
            for _ in 0..<spec.count { bytes += unit }
            return bytes + Array(spec.suffix.utf8)
        }
    }

    let schema: String
    let numberOfTests: Int
    let keys: [String: Key]
    let tests: [Case]

    static let shared: MetadataVectorFile? = {
        guard let bytes = try? MetadataFixtures.bytes("TestVectors/user-metadata/user_metadata_test.json") else { return nil }
        return try? JSONDecoder().decode(MetadataVectorFile.self, from: Data(bytes))
    }()

    static var cases: [Case] { shared?.tests ?? [] }

    static let privateKeys: [String: RSAPrivateKey] = {
        var result: [String: RSAPrivateKey] = [:]
        for (name, key) in shared?.keys ?? [:] { result[name] = try? RSAPrivateKey(pemRepresentation: key.privateKeyPem) }
        return result
    }()
}

extension MetadataVectorFile.Repeat: Sendable {}

@Suite("User metadata vectors")
struct MetadataVectorTests {
    @Test("the vector file loads and covers every error code and area")
    func coverage() throws {
        let file = try #require(MetadataVectorFile.shared, "TestVectors/user-metadata/user_metadata_test.json did not load")
        #expect(file.schema == "tvekit-user-metadata-v1")
        #expect(file.tests.count == file.numberOfTests)
        #expect(
            Set(file.tests.compactMap(\.error)) == [
                "malformedDocument", "malformedCiphertext", "unsupportedAlgorithm",
                "decryptionFailed", "inputTooLarge",
            ])
        for area in ["rsa-blocks", "jwe", "plaintext", "document", "limits"] {
            #expect(file.tests.contains { $0.class.hasPrefix(area + "/") }, "no \(area) case")
        }
        // The PKCS#12 fixtures hold the vectors' primary key.
        let key = try #require(MetadataVectorFile.privateKeys["primary"])
        for name in ["modern.p12", "legacy.p12"] {
            let bundle = try PKCS12Bundle(
                derRepresentation: MetadataFixtures.bytes("TestVectors/fixtures/\(name)"),
                password: MetadataFixtures.pkcs12Password)
            #expect(bundle.privateKey.publicKey == key.publicKey, "\(name)")
        }
        print("user-metadata vectors: \(file.tests.count) cases")
    }

    @Test("every vector gives its expected document or error", arguments: MetadataVectorFile.cases)
    func vector(_ vector: MetadataVectorFile.Case) throws {
        let key = try #require(MetadataVectorFile.privateKeys[vector.key], "unknown key \(vector.key)")
        let decryptor = MetadataDecryptor(privateKey: key, options: .init(allowsRSA1_5: vector.allowRSA1_5 ?? false))
        do {
            let metadata = try decryptor.decrypt(jsonText: vector.text)
            let expected = try #require(vector.expected, "decrypted, but the vector expects \(vector.error ?? "?")")
            #expect(metadata.updated == expected.updated)
            #expect(metadata.values == expected.data)
        } catch let error as MetadataError {
            #expect(error.code.description == vector.error, "got \(error)")
            if error.code == .decryptionFailed { #expect(error.reason == MetadataError.decryptionFailed().reason) }
        }
    }
}
