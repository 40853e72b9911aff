import Foundation
import Testing
import TVETestSupport
import TVECrypto
@testable import TVESAML

/// TestVectors/saml (schema in its README): responses signed by independent signers (signxml, xmlsec1, hand-built
/// attacks), each with its expected outcome and, when accepted, the exact NameID and attributes.
struct SAMLVectorFile: Decodable {
    struct Key: Decodable {
        let certificatePem: String
    }
    struct Repeat: Decodable, Sendable {
        let prefix: String
        let `repeat`: String
        let count: Int
        let suffix: String
    }
    struct Config: Decodable, Sendable {
        let idpEntityID: String?
        let spEntityID: String?
        let acsURL: String?
        let requestID: String??
        let now: String?
        let skewSeconds: Int?
        let trustedCertificates: [String]?

        enum CodingKeys: String, CodingKey { case idpEntityID, spEntityID, acsURL, requestID, now, skewSeconds, trustedCertificates }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            idpEntityID = try container.decodeIfPresent(String.self, forKey: .idpEntityID)
            spEntityID = try container.decodeIfPresent(String.self, forKey: .spEntityID)
            acsURL = try container.decodeIfPresent(String.self, forKey: .acsURL)
            // Present and null means "not checked"; absent means the default.
            requestID = container.contains(.requestID) ? .some(try container.decodeIfPresent(String.self, forKey: .requestID)) : nil
            now = try container.decodeIfPresent(String.self, forKey: .now)
            skewSeconds = try container.decodeIfPresent(Int.self, forKey: .skewSeconds)
            trustedCertificates = try container.decodeIfPresent([String].self, forKey: .trustedCertificates)
        }
    }
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let `class`: String
        let comment: String
        let input: String?
        let inputRepeat: Repeat?
        let config: Config?
        let result: String
        let nameID: String?
        let attributes: [String: [String]]?
        let issuer: String?
        let sessionIndex: String?
        let notOnOrAfter: String?
        let rejectRules: [String]?

        var testDescription: String { "#\(id) \(`class`): \(comment)" }

        var bytes: [UInt8] {
            if let input { return Array(input.utf8) }
            guard let spec = inputRepeat else { return [] }
            var bytes = Array(spec.prefix.utf8)
            let unit = Array(spec.repeat.utf8)
            for _ in 0..<spec.count { bytes += unit }
            return bytes + Array(spec.suffix.utf8)
        }
    }

    let schema: String
    let numberOfTests: Int
    let keys: [String: Key]
    let tests: [Case]

    static let shared: SAMLVectorFile? = {
        let url = Fixtures.repository.appendingPathComponent("TestVectors/saml/saml_test.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? JSONDecoder().decode(SAMLVectorFile.self, from: data)
    }()
    static var cases: [Case] { shared?.tests ?? [] }
    static let certificates: [String: X509Certificate] = {
        var result: [String: X509Certificate] = [:]
        for (name, key) in shared?.keys ?? [:] { result[name] = try? X509Certificate(pemRepresentation: key.certificatePem) }
        return result
    }()
}

@Suite("SAML vectors")
struct SAMLVectorTests {
    @Test("the vector file loads and covers accepts, attacks, semantics and input classes")
    func coverage() throws {
        let file = try #require(SAMLVectorFile.shared, "TestVectors/saml/saml_test.json did not load")
        #expect(file.schema == "tvekit-saml-v1")
        #expect(file.tests.count == file.numberOfTests)
        for area in ["accept", "attack", "semantics", "input"] {
            #expect(file.tests.contains { $0.class.hasPrefix(area + "/") }, "no \(area) case")
        }
        print("saml vectors: \(file.tests.count) cases")
    }

    @Test("every vector gives its expected outcome", arguments: SAMLVectorFile.cases)
    func vector(_ vector: SAMLVectorFile.Case) throws {
        let config = vector.config
        let trusted = try (config?.trustedCertificates ?? ["idp"]).map {
            try #require(SAMLVectorFile.certificates[$0], "unknown key \($0)")
        }
        let now = try #require(ISO8601DateFormatter().date(from: config?.now ?? "2026-01-01T00:05:00Z"))
        let requestID: String? = config?.requestID ?? "_req-0001"
        let verifier = try SAMLResponseVerifier(
            configuration: try SAMLVerifierConfiguration(
                idpCertificates: trusted, idpEntityID: config?.idpEntityID ?? "https://idp.mvpd.example/saml",
                spEntityID: config?.spEntityID ?? "https://sp.tvekit.example/saml",
                acsURL: config?.acsURL ?? "https://sp.tvekit.example/saml/acs",
                requestID: requestID, allowsIdPInitiated: requestID == nil, clockSkew: .seconds(config?.skewSeconds ?? 180), clock: { now })
        )
        do {
            let assertion = try verifier.verify(vector.bytes)
            #expect(vector.result == "accept", "accepted, but the vector expects one of \(vector.rejectRules ?? [])")
            guard vector.result == "accept" else { return }
            #expect(assertion.nameID == vector.nameID)
            var attributes: [String: [String]] = [:]
            for attribute in assertion.attributes { attributes[attribute.name, default: []] += attribute.values }
            #expect(attributes == (vector.attributes ?? [:]))
            #expect(assertion.issuer == vector.issuer)
            #expect(assertion.sessionIndex == vector.sessionIndex)
            #expect(assertion.notOnOrAfterText == vector.notOnOrAfter)
        } catch {
            let rule = error.failures.first?.rule.code ?? "?"
            #expect(vector.result == "reject", "rejected with \(rule): \(error.failures.first?.reason ?? "")")
            if vector.result == "reject" {
                #expect((vector.rejectRules ?? []).contains(rule), "rejected with \(rule), expected one of \(vector.rejectRules ?? [])")
            }
        }
    }
}
