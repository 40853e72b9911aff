import Foundation
import Testing
import TVECrypto
@testable import TVETokens

/// The vectors of TestVectors/media-token (schema in its README), made by its Python generator with the
/// `cryptography` package: an implementation independent of this one.
struct MediaTokenVectorFile: Decodable {
    struct Key: Decodable {
        let certificatePem: String
        let privateKeyPem: String
    }
    struct Fields: Decodable {
        let sessionGUID: String
        let requestorID: String
        let resourceID: String
        let ttl: Int64
        let issueTime: Int64
        let mvpdId: String
        let proxyMvpdId: String
    }
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let comment: String
        let `class`: String
        let trustedKeys: [String]
        let requestorID: String
        let resourceID: String?
        let now: Int64
        let skewSeconds: Int64
        let replayGuard: Bool
        let input: String
        let inputEncoding: String
        let results: [String]
        let fields: Fields?

        var testDescription: String { "#\(id) \(`class`): \(comment)" }

        var inputBytes: [UInt8] {
            inputEncoding == "hex" ? [UInt8](hexString: input) : Array(input.utf8)
        }
    }

    let schema: String
    let numberOfTests: Int
    let keys: [String: Key]
    let tests: [Case]

    static let shared: MediaTokenVectorFile? = {
        guard let bytes = try? TokenFixtures.bytes("TestVectors/media-token/media_token_test.json") else { return nil }
        return try? JSONDecoder().decode(MediaTokenVectorFile.self, from: Data(bytes))
    }()

    static var cases: [Case] { shared?.tests ?? [] }

    /// Certificates parsed once for all cases.
    static let certificates: [String: X509Certificate] = {
        var result: [String: X509Certificate] = [:]
        for (name, key) in shared?.keys ?? [:] { result[name] = try? X509Certificate(pemRepresentation: key.certificatePem) }
        return result
    }()
}

extension MediaTokenVectorFile.Fields: Sendable {}

extension Array where Element == UInt8 {
    init(hexString: String) {
        var bytes: [UInt8] = []
        var index = hexString.startIndex
        while index < hexString.endIndex, let next = hexString.index(index, offsetBy: 2, limitedBy: hexString.endIndex) {
            bytes.append(UInt8(hexString[index..<next], radix: 16) ?? 0)
            index = next
        }
        self = bytes
    }
}

@Suite("Media token vectors")
struct MediaTokenVectorTests {
    @Test("the vector file loads and covers every result code and class")
    func coverage() throws {
        let file = try #require(MediaTokenVectorFile.shared, "TestVectors/media-token/media_token_test.json does not load")
        #expect(file.schema == "tvekit-media-token-v1")
        #expect(file.tests.count == file.numberOfTests)
        let results = Set(file.tests.flatMap(\.results))
        #expect(results == Set(MediaTokenVerification.Result.all.map(\.rawValue)))
        let classes = Set(file.tests.map { String($0.class.split(separator: "/").first ?? "") })
        #expect(classes == ["valid", "format", "signature", "requestor", "resource", "time", "order", "replay"])
        #expect(MediaTokenVectorFile.certificates.count == 3)
        print("media-token vectors: \(file.tests.count) cases in \(classes.count) classes")
    }

    @Test("every vector gives its expected results", arguments: MediaTokenVectorFile.cases)
    func vector(_ test: MediaTokenVectorFile.Case) throws {
        let certificates = try test.trustedKeys.map { try #require(MediaTokenVectorFile.certificates[$0], "unknown key \($0)") }
        let verifier = try MediaTokenVerifier(trustedCertificates: certificates, requestorID: test.requestorID,
                                              clockSkew: .seconds(test.skewSeconds), clock: FixedMediaTokenClock(milliseconds: test.now),
                                              replayGuard: test.replayGuard ? InMemoryTokenReplayGuard() : nil)
        let input = test.inputBytes
        for (attempt, expected) in test.results.enumerated() {
            let outcome = verifier.verify(input, resourceID: test.resourceID)
            #expect(outcome.result.rawValue == expected, "#\(test.id) attempt \(attempt + 1): \(outcome) (\(test.comment))")
            #expect((outcome.token != nil) == (expected == "VALID_TOKEN"), "#\(test.id): fields must come only with VALID_TOKEN")
            if attempt == 0, let fields = test.fields, let token = outcome.token {
                #expect(token.userSessionGUID == fields.sessionGUID, "#\(test.id) sessionGUID")
                #expect(token.requestorID == fields.requestorID, "#\(test.id) requestorID")
                #expect(token.resourceID == fields.resourceID, "#\(test.id) resourceID")
                #expect(token.timeToLive == fields.ttl, "#\(test.id) ttl")
                #expect(token.timeIssued == fields.issueTime, "#\(test.id) issueTime")
                #expect(token.mvpdId == fields.mvpdId, "#\(test.id) mvpdId")
                #expect((token.proxyMvpdId ?? "") == fields.proxyMvpdId, "#\(test.id) proxyMvpdId")
            }
        }
        // The same input through the String entry point gives the same first result.
        if test.inputEncoding == "utf8" {
            let fresh = try MediaTokenVerifier(trustedCertificates: certificates, requestorID: test.requestorID,
                                               clockSkew: .seconds(test.skewSeconds), clock: FixedMediaTokenClock(milliseconds: test.now))
            #expect(fresh.verify(test.input, resourceID: test.resourceID).result.rawValue == test.results[0], "#\(test.id) (String input)")
        }
    }

    @Test("the issuer reproduces every valid vector's token byte for byte")
    func issuerMatchesGenerator() throws {
        let file = try #require(MediaTokenVectorFile.shared)
        var checked = 0
        for test in file.tests where test.class == "valid" && test.results == ["VALID_TOKEN"] && test.trustedKeys == ["primary"] {
            guard let fields = test.fields, let token = try? ShortMediaToken(parsing: test.inputBytes) else { continue }
            let key = try RSAPrivateKey(pemRepresentation: try #require(file.keys["primary"]).privateKeyPem)
            let issued = try MediaTokenIssuer(privateKey: key).issue(
                requestorID: fields.requestorID, resourceID: fields.resourceID, mvpdId: fields.mvpdId, sessionGUID: fields.sessionGUID,
                proxyMvpdId: token.proxyMvpdId, ttl: fields.ttl, issueTime: fields.issueTime)
            // Same fields, same escaping rules: the same signed bytes, hence the same deterministic signature.
            if issued.signedBytes.elementsEqual(token.signedBytes) {
                #expect(issued.signature == token.signature, "#\(test.id)")
                checked += 1
            }
        }
        #expect(checked >= 5, "only \(checked) valid vectors were canonical enough to compare")
        print("media-token vectors: the issuer reproduced \(checked) valid tokens byte for byte")
    }
}
