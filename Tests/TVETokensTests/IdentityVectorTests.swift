import Foundation
import Testing
import TVECrypto
@testable import TVETokens

/// TestVectors/requestor and TestVectors/clientless (schemas in their READMEs), made with Python's `cryptography`
/// and `hmac`: implementations independent of this one.
struct RequestorVectorFile: Decodable {
    struct Key: Decodable {
        let privateKeyPem: String
    }
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let `class`: String
        let comment: String
        let requestorID: String
        let signature: String
        let certificate: String
        let result: String
        let expectedSignature: String?
        let expectedWrapped: String?
        var testDescription: String { "#\(id) \(`class`): \(comment)" }
    }
    let schema: String
    let numberOfTests: Int
    let keys: [String: Key]
    let tests: [Case]

    static let shared: RequestorVectorFile? = {
        guard let bytes = try? TokenFixtures.bytes("TestVectors/requestor/requestor_test.json") else { return nil }
        return try? JSONDecoder().decode(RequestorVectorFile.self, from: Data(bytes))
    }()
    static var cases: [Case] { shared?.tests ?? [] }
    static let privateKeys: [String: RSAPrivateKey] = {
        var result: [String: RSAPrivateKey] = [:]
        for (name, key) in shared?.keys ?? [:] { result[name] = try? RSAPrivateKey(pemRepresentation: key.privateKeyPem) }
        return result
    }()
}

struct ClientlessVectorFile: Decodable {
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let `class`: String
        let comment: String
        let kind: String
        let method: String?
        let requestorID: String?
        let nonce: String?
        let requestTime: Int64?
        let requestURI: String?
        let publicKey: String?
        let secret: String?
        let expectedMessage: String?
        let expectedHeader: String?
        let header: String?
        let result: String?
        var testDescription: String { "#\(id) \(`class`): \(comment)" }
    }
    let schema: String
    let numberOfTests: Int
    let tests: [Case]

    static let shared: ClientlessVectorFile? = {
        guard let bytes = try? TokenFixtures.bytes("TestVectors/clientless/clientless_test.json") else { return nil }
        return try? JSONDecoder().decode(ClientlessVectorFile.self, from: Data(bytes))
    }()
    static var cases: [Case] { shared?.tests ?? [] }
}

@Suite("Requestor and clientless vectors")
struct IdentityVectorTests {
    @Test("both vector files load and cover every result")
    func coverage() throws {
        let requestor = try #require(RequestorVectorFile.shared, "requestor_test.json did not load")
        #expect(requestor.tests.count == requestor.numberOfTests)
        #expect(Set(requestor.tests.map(\.result)) == ["valid", "invalid", "malformed"])
        let clientless = try #require(ClientlessVectorFile.shared, "clientless_test.json did not load")
        #expect(clientless.tests.count == clientless.numberOfTests)
        #expect(Set(clientless.tests.compactMap(\.result)) == ["valid", "invalid", "malformed"])
        #expect(clientless.tests.contains { $0.kind == "sign" })
        print("identity vectors: \(requestor.tests.count) requestor, \(clientless.tests.count) clientless cases")
    }

    @Test("every signed requestor ID vector", arguments: RequestorVectorFile.cases)
    func requestor(_ vector: RequestorVectorFile.Case) throws {
        let key = try #require(RequestorVectorFile.privateKeys[vector.certificate], "unknown key \(vector.certificate)")
        do {
            let valid = try SignedRequestorID.isValid(vector.signature, for: vector.requestorID, publicKey: key.publicKey)
            #expect((valid ? "valid" : "invalid") == vector.result)
        } catch let error as MediaTokenError {
            #expect(vector.result == "malformed", "got \(error)")
        }
        if let expected = vector.expectedSignature {
            #expect(try SignedRequestorID.sign(vector.requestorID, with: key) == expected)
        }
        if let expected = vector.expectedWrapped {
            #expect(try SignedRequestorID.sign(vector.requestorID, with: key, wrapped: true) == expected)
        }
    }

    @Test("every clientless vector", arguments: ClientlessVectorFile.cases)
    func clientless(_ vector: ClientlessVectorFile.Case) throws {
        let secret = SecureBytes(utf8: try #require(vector.secret))
        if vector.kind == "sign" {
            let signer = try ClientlessRequestSigner(
                requestorID: try #require(vector.requestorID), publicKey: try #require(vector.publicKey),
                secret: secret)
            let header = try signer.authorizationHeader(
                method: try #require(vector.method), requestURI: try #require(vector.requestURI),
                nonce: try #require(vector.nonce), requestTime: try #require(vector.requestTime))
            #expect(header == vector.expectedHeader)
            let parsed = try ClientlessAuthorization(header: header)
            #expect(parsed.message == vector.expectedMessage)
            #expect(parsed.isValid(secret: secret, publicKey: vector.publicKey))
        } else {
            do {
                let parsed = try ClientlessAuthorization(header: try #require(vector.header))
                #expect((parsed.isValid(secret: secret, publicKey: vector.publicKey) ? "valid" : "invalid") == vector.result)
            } catch let error as MediaTokenError {
                #expect(vector.result == "malformed", "got \(error)")
            }
        }
    }
}
