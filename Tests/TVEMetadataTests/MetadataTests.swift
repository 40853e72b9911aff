import Foundation
import Testing
import TVECrypto
@testable import TVEMetadata

@Suite("User metadata")
struct MetadataTests {
    static let decryptor = MetadataDecryptor(privateKey: MetadataFixtures.key)
    static let values: [String: JSONValue] = [
        "zip": .array([.string("12345"), .string("34567")]),
        "householdID": .string("hh-1"),
        "maxRating": .object(["MPAA": .string("PG-13"), "VCHIP": .string("TV-Y"), "URL": .string("http://exam.pl/e/manage/ratings")]),
        "userID": .string("user-ü-1"),
        "channelID": .array([.string("channel-1"), .string("channel-2")]),
        "tokenSource": .string("Apple"),
        "hba_status": .bool(true),
        "custom": .object(["n": .integer(3), "x": .number(1.5), "z": .null]),
    ]
    static let metadata = UserMetadata(updated: 1_334_243_471, values: values)

    static let encodings: [MetadataEncryptor.Encoding] =
        [.rsaBlocks(lineLength: nil), .rsaBlocks(lineLength: 76)]
        + JWE.KeyAlgorithm.allCases.flatMap { alg in JWE.ContentAlgorithm.allCases.map { MetadataEncryptor.Encoding.jwe(alg, $0) } }

    @Test("encrypt then decrypt round-trips every encoding", arguments: encodings)
    func roundTrip(encoding: MetadataEncryptor.Encoding) throws {
        let encryptor = MetadataEncryptor(publicKey: MetadataFixtures.key.publicKey, encoding: encoding)
        let document = try encryptor.encryptDocument(Self.metadata, encrypting: ["zip", "householdID", "maxRating", "userID", "channelID"])
        let decryptor = MetadataDecryptor(privateKey: MetadataFixtures.key, options: .init(allowsRSA1_5: true))
        let decrypted = try decryptor.decrypt(jsonText: Array(document.jsonText.utf8))
        #expect(decrypted.values == Self.values)
        #expect(decrypted.decryptedKeys == ["channelID", "householdID", "maxRating", "userID", "zip"])
        #expect(decrypted.zip == ["12345", "34567"])
        #expect(decrypted.maxRating == MaxRating(mpaa: "PG-13", vchip: "TV-Y", url: "http://exam.pl/e/manage/ratings"))
        #expect(decrypted.tokenSource == "Apple")
        #expect(decrypted.hbaStatus == true)
        #expect(decrypted.userID == "user-ü-1")
        #expect(decrypted.updated == 1_334_243_471)
    }

    @Test("a long value spans several RSA blocks")
    func severalBlocks() throws {
        let long = JSONValue.string(String(repeating: "channel-", count: 100))
        let text = try MetadataEncryptor(publicKey: MetadataFixtures.key.publicKey).encryptValue(long)
        #expect(try Base64.decode(text).count == 256 * 4)
        #expect(try Self.decryptor.decryptValue(text) == long)
    }

    @Test("rejectsWrongKeyGarbage: a value under another key is decryptionFailed, never a plaintext")
    func rejectsWrongKeyGarbage() throws {
        for encoding in Self.encodings {
            let text = try MetadataEncryptor(publicKey: MetadataFixtures.otherKey.publicKey, encoding: encoding).encryptValue(
                .string("12345"))
            let error = metadataError {
                _ = try MetadataDecryptor(privateKey: MetadataFixtures.key, options: .init(allowsRSA1_5: true)).decryptValue(text)
            }
            #expect(error?.code == .decryptionFailed, "\(encoding)")
            #expect(error?.reason == MetadataError.decryptionFailed().reason)
        }
    }

    @Test("rejectsRSA1_5Downgrade: JWE RSA1_5 is refused unless allowed")
    func rejectsRSA1_5Downgrade() throws {
        let text = try MetadataEncryptor(publicKey: MetadataFixtures.key.publicKey, encoding: .jwe(.rsa1_5, .a128GCM)).encryptValue(
            .string("x"))
        #expect(metadataError { _ = try Self.decryptor.decryptValue(text) }?.code == .unsupportedAlgorithm)
        #expect(
            try MetadataDecryptor(privateKey: MetadataFixtures.key, options: .init(allowsRSA1_5: true)).decryptValue(text) == .string("x"))
    }

    @Test("a plaintext that is not JSON is a string (choice); an error names the key, not the plaintext")
    func nonJSONPlaintext() throws {
        let encryptor = MetadataEncryptor(publicKey: MetadataFixtures.key.publicKey)
        #expect(try Self.decryptor.decryptValue(encryptor.encrypt(plaintext: Array("hello world".utf8))) == .string("hello world"))
        #expect(try Self.decryptor.decryptValue(encryptor.encrypt(plaintext: Array("12345".utf8))) == .integer(12345))
        #expect(try Self.decryptor.decryptValue(encryptor.encrypt(plaintext: [])) == .string(""))
        let bad = try encryptor.encrypt(plaintext: [0xFF, 0xFE])
        #expect(metadataError { _ = try Self.decryptor.decryptValue(bad) }?.code == .decryptionFailed)
        let document = #"{"updated": 1, "encrypted": ["zip"], "data": {"zip": "\#(bad)"}}"#
        let error = metadataError { _ = try Self.decryptor.decrypt(jsonText: Array(document.utf8)) }
        #expect(error?.key == "zip")
    }

    @Test("the PKCS#12 key decrypts, modern and legacy encryption", arguments: ["modern.p12", "legacy.p12"])
    func pkcs12(file: String) throws {
        let bundle = try PKCS12Bundle(
            derRepresentation: MetadataFixtures.bytes("TestVectors/fixtures/\(file)"), password: MetadataFixtures.pkcs12Password)
        let text = try MetadataEncryptor(certificate: bundle.certificate).encryptValue(.string("hh-1"))
        #expect(try MetadataDecryptor(pkcs12: bundle).decryptValue(text) == .string("hh-1"))
        #expect(try Self.decryptor.decryptValue(text) == .string("hh-1"))
    }

    @Test("REST v2 attributes are read, plain and enc")
    func restV2() throws {
        let encrypted = try MetadataEncryptor(publicKey: MetadataFixtures.key.publicKey).encryptValue(.array([.string("12345")]))
        let json = #"{"attributes": {"zip": {"value": "\#(encrypted)", "state": "enc"}, "userID": {"value": "u1", "state": "plain"}}}"#
        let metadata = try Self.decryptor.decrypt(jsonText: Array(json.utf8))
        #expect(metadata.zip == ["12345"])
        #expect(metadata.userID == "u1")
        #expect(metadata.updated == nil)
    }

    @Test(
        "malformed documents are malformedDocument",
        arguments: [
            "not json", "[1]", #"{"data": {}}"#, #"{"updated": "1", "data": {}}"#, #"{"updated": 1, "data": []}"#,
            #"{"updated": 1, "encrypted": "zip", "data": {"zip": "x"}}"#, #"{"updated": 1, "encrypted": [1], "data": {}}"#,
            #"{"updated": 1, "encrypted": ["zip"], "data": {}}"#, #"{"updated": 1, "encrypted": ["zip"], "data": {"zip": ["1"]}}"#,
            #"{"attributes": {"zip": {"value": "x", "state": "secret"}}}"#, #"{"attributes": {"zip": {"value": 1, "state": "enc"}}}"#,
            #"{"attributes": []}"#, "{}",
        ])
    func malformedDocuments(json: String) {
        #expect(metadataError { _ = try Self.decryptor.decrypt(jsonText: Array(json.utf8)) }?.code == .malformedDocument)
    }

    @Test("rejectsOversizedDocument: documents over 1 MiB and values over 64 KiB are refused before parsing")
    func rejectsOversizedDocument() {
        let big = #"{"updated": 1, "data": {"a": ""# + String(repeating: "a", count: 1 << 20) + #""}}"#
        #expect(metadataError { _ = try Self.decryptor.decrypt(jsonText: Array(big.utf8)) }?.code == .inputTooLarge)
        let value = String(repeating: "A", count: 65 * 1024)
        let document = #"{"updated": 1, "encrypted": ["a"], "data": {"a": "\#(value)"}}"#
        #expect(metadataError { _ = try Self.decryptor.decrypt(jsonText: Array(document.utf8)) }?.code == .inputTooLarge)
    }

    @Test("rejectsDeepNesting: a deeply nested document is an error, not a crash")
    func rejectsDeepNesting() {
        let deep =
            #"{"updated": 1, "data": {"a": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}"
        #expect(metadataError { _ = try Self.decryptor.decrypt(jsonText: Array(deep.utf8)) }?.code == .malformedDocument)
    }
}
