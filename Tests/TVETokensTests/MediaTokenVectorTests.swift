import Foundation
import Testing
import TVECrypto
@testable import TVETokens

/// The vectors of TestVectors/media-token (schema "tvekit-media-token-v2", described in its README; the format is
/// FORMATS.md §1), made by its Python generator with the `cryptography` package: an implementation independent of
/// this one.
struct MediaTokenVectorFile: Decodable {
    struct Key: Decodable {
        let bits: Int
        let certificatePem: String
        let privateKeyPem: String
    }
    /// A token's form as the vector file spells it.
    struct Form: Decodable, Hashable, Sendable, CustomStringConvertible {
        let root: String
        let signatureInfoEnd: String
        let issueTimeEncoding: String
        let utcOffsetMinutes: Int?

        var description: String { "\(root)/\(signatureInfoEnd)/\(issueTimeEncoding)/\(utcOffsetMinutes.map(String.init) ?? "-")" }
    }
    struct Fields: Decodable, Sendable {
        let sessionGUID: String
        let requestorID: String
        let resourceID: String
        let ttl: Int64
        let issueTime: Int64
        let issueTimeText: String
        let mvpdId: String
        /// `""` when the element is empty or absent.
        let proxyMvpdId: String
        let form: Form
    }
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let id: Int
        let comment: String
        let `class`: String
        let trustedKeys: [String]
        let allow1024BitKeys: Bool
        let configurationError: Bool
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

        enum CodingKeys: String, CodingKey {
            case id, comment, `class`, trustedKeys, allow1024BitKeys, configurationError, requestorID, resourceID, now,
                skewSeconds, replayGuard, input, inputEncoding, results, fields
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(Int.self, forKey: .id)
            comment = try c.decode(String.self, forKey: .comment)
            `class` = try c.decode(String.self, forKey: .class)
            trustedKeys = try c.decode([String].self, forKey: .trustedKeys)
            allow1024BitKeys = try c.decodeIfPresent(Bool.self, forKey: .allow1024BitKeys) ?? false
            configurationError = try c.decodeIfPresent(Bool.self, forKey: .configurationError) ?? false
            requestorID = try c.decode(String.self, forKey: .requestorID)
            resourceID = try c.decodeIfPresent(String.self, forKey: .resourceID)
            now = try c.decode(Int64.self, forKey: .now)
            skewSeconds = try c.decode(Int64.self, forKey: .skewSeconds)
            replayGuard = try c.decode(Bool.self, forKey: .replayGuard)
            input = try c.decode(String.self, forKey: .input)
            inputEncoding = try c.decode(String.self, forKey: .inputEncoding)
            results = try c.decode([String].self, forKey: .results)
            fields = try c.decodeIfPresent(Fields.self, forKey: .fields)
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

    /// Certificates parsed once for all cases (the 1024-bit one included).
    static let certificates: [String: X509Certificate] = {
        var result: [String: X509Certificate] = [:]
        for (name, key) in shared?.keys ?? [:] { result[name] = try? X509Certificate(pemRepresentation: key.certificatePem) }
        return result
    }()

    /// The certificates' public keys, loaded once with the 1024-bit opt-in so that the verifier's own check (and not
    /// key loading) decides whether a case's configuration is accepted.
    static let publicKeys: [String: RSAPublicKey] = {
        var result: [String: RSAPublicKey] = [:]
        for (name, key) in shared?.keys ?? [:] {
            result[name] = try? RSAPublicKey(encodedKeyOrCertificate: Array(key.certificatePem.utf8), allowing1024BitKeys: true)
        }
        return result
    }()
}

extension ShortMediaToken.Form {
    /// This form as the vector files spell it.
    var vectorForm: MediaTokenVectorFile.Form {
        let root: String
        switch self.root {
        case .authToken: root = "authToken"
        case .shortAuthorizationToken: root = "shortAuthorizationToken"
        }
        let end: String
        switch signatureInfoEnd {
        case .unslashed: end = "unslashed"
        case .slashed: end = "slashed"
        }
        switch issueTimeEncoding {
        case .dateTime(let minutes):
            return .init(root: root, signatureInfoEnd: end, issueTimeEncoding: "dateTime", utcOffsetMinutes: minutes)
        case .epochMilliseconds:
            return .init(root: root, signatureInfoEnd: end, issueTimeEncoding: "epochMilliseconds", utcOffsetMinutes: nil)
        }
    }
}

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
    @Test("the vector file loads and covers every result code, class, form and key")
    func coverage() throws {
        let file = try #require(MediaTokenVectorFile.shared, "TestVectors/media-token/media_token_test.json does not load")
        #expect(file.schema == "tvekit-media-token-v2")
        try #require(!file.tests.isEmpty)
        #expect(file.tests.count == file.numberOfTests)
        #expect(file.tests.map(\.id) == Array(1...file.tests.count))
        let results = Set(file.tests.flatMap(\.results))
        // Every result a token alone can give: REPLAY_CHECK_FAILED needs a replay store that fails (the store tests).
        #expect(results == Set(MediaTokenVerification.Result.all.map(\.rawValue)).subtracting(["REPLAY_CHECK_FAILED"]))
        let classes = Set(file.tests.map { String($0.class.split(separator: "/").first ?? "") })
        #expect(classes == ["valid", "format", "signature", "key", "requestor", "resource", "time", "order", "replay"])
        #expect(Set(file.keys.keys) == ["primary", "rotated", "untrusted", "legacy1024"])
        #expect(file.keys["legacy1024"]?.bits == 1024)
        #expect(MediaTokenVectorFile.certificates.count == 4)
        #expect(MediaTokenVectorFile.publicKeys.count == 4, "a test key (the 1024-bit one?) does not load")
        // All eight forms (root × signatureInfo end × issueTime encoding) among the valid cases.
        let forms = Set(
            file.tests.compactMap { $0.fields.map { "\($0.form.root)/\($0.form.signatureInfoEnd)/\($0.form.issueTimeEncoding)" } })
        #expect(forms.count == 8, "\(forms.sorted())")
        let configurationErrors = file.tests.filter(\.configurationError)
        #expect(!configurationErrors.isEmpty)
        #expect(configurationErrors.allSatisfy { $0.results.isEmpty && $0.fields == nil })
        #expect(file.tests.allSatisfy { $0.configurationError || !$0.results.isEmpty })
        print(
            "media-token vectors: \(file.tests.count) cases in \(classes.count) classes, \(configurationErrors.count) configuration errors")
    }

    @Test("every vector gives its expected results", arguments: MediaTokenVectorFile.cases)
    func vector(_ test: MediaTokenVectorFile.Case) throws {
        let keys = try test.trustedKeys.map { try #require(MediaTokenVectorFile.publicKeys[$0], "unknown key \($0)") }
        let certificates = try test.trustedKeys.map { try #require(MediaTokenVectorFile.certificates[$0], "unknown certificate \($0)") }
        let clock = FixedMediaTokenClock(milliseconds: test.now)
        let skew = Duration.seconds(test.skewSeconds)

        if test.configurationError {
            #expect(test.results.isEmpty)
            let fromKeys = tokenError {
                _ = try MediaTokenVerifier(
                    trustedKeys: keys, requestorID: test.requestorID, clockSkew: skew, clock: clock,
                    replayGuard: nil, allowing1024BitKeys: test.allow1024BitKeys)
            }
            #expect(fromKeys?.code == .invalidConfiguration, "#\(test.id): trusted keys under 2048 bits without the opt-in")
            // Trusted as certificates, building fails too (the certificate's key may be refused while it is read, with
            // the error of TVECrypto, before the verifier's own check).
            #expect(throws: (any Error).self, "#\(test.id): the same trusted as certificates") {
                _ = try MediaTokenVerifier(
                    trustedCertificates: certificates, requestorID: test.requestorID, clockSkew: skew,
                    clock: clock, replayGuard: nil, allowing1024BitKeys: test.allow1024BitKeys)
            }
            return
        }

        let verifier = try MediaTokenVerifier(
            trustedKeys: keys, requestorID: test.requestorID, clockSkew: skew, clock: clock,
            replayGuard: test.replayGuard ? InMemoryTokenReplayGuard() : nil,
            allowing1024BitKeys: test.allow1024BitKeys)
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
                #expect(token.issueTimeText == fields.issueTimeText, "#\(test.id) issueTimeText")
                #expect(token.mvpdId == fields.mvpdId, "#\(test.id) mvpdId")
                #expect((token.proxyMvpdId ?? "") == fields.proxyMvpdId, "#\(test.id) proxyMvpdId")
                #expect(token.form.vectorForm == fields.form, "#\(test.id) form")
            }
        }

        // The same input through the String entry point, with a fresh verifier built from the certificates, gives the
        // same first result.
        if test.inputEncoding == "utf8" {
            let fresh = try MediaTokenVerifier(
                trustedCertificates: certificates, requestorID: test.requestorID, clockSkew: skew,
                clock: clock, replayGuard: nil, allowing1024BitKeys: test.allow1024BitKeys)
            #expect(
                fresh.verify(test.input, resourceID: test.resourceID).result.rawValue == test.results[0],
                "#\(test.id) (String input, certificates)")
        }

        // The parser alone: it fails exactly on the malformed inputs (those within the input limit; the limit itself is
        // the verifier's), and a valid token's parsed fields, form and signed bytes are the expected ones.
        guard input.count <= 65_536 else { return }
        let parsed = try? ShortMediaToken(parsing: input)
        #expect((parsed == nil) == (test.results[0] == "INVALID_TOKEN_FORMAT"), "#\(test.id): ShortMediaToken(parsing:) disagrees")
        if let fields = test.fields, let parsed {
            #expect(parsed.sessionGUID == fields.sessionGUID, "#\(test.id) parsed sessionGUID")
            #expect(parsed.requestorID == fields.requestorID, "#\(test.id) parsed requestorID")
            #expect(parsed.resourceID == fields.resourceID, "#\(test.id) parsed resourceID")
            #expect(parsed.ttl == fields.ttl, "#\(test.id) parsed ttl")
            #expect(parsed.issueTime == fields.issueTime, "#\(test.id) parsed issueTime")
            #expect(parsed.issueTimeText == fields.issueTimeText, "#\(test.id) parsed issueTimeText")
            #expect(parsed.mvpdId == fields.mvpdId, "#\(test.id) parsed mvpdId")
            #expect((parsed.proxyMvpdId ?? "") == fields.proxyMvpdId, "#\(test.id) parsed proxyMvpdId")
            #expect(parsed.form.vectorForm == fields.form, "#\(test.id) parsed form")
            // The signed bytes are the root element as on the wire: they end the token text and run from its start tag.
            let signed = Array(parsed.signedBytes)
            let root = Array("<\(fields.form.root)>".utf8)
            #expect(signed.starts(with: root), "#\(test.id) signed bytes start with <\(fields.form.root)>")
            #expect(parsed.signedRange.upperBound == parsed.text.count, "#\(test.id) signed bytes end the token text")
            #expect(signed.elementsEqual(parsed.text[parsed.signedRange]), "#\(test.id) signedBytes == text[signedRange]")
        }
    }

    /// The generator writes values the way FORMATS.md §1 says TVEKit writes them (CDATA when a value holds `<`, `&` or
    /// `>`, with `]]>` split; otherwise as it is), so the issuer, given a valid vector's fields and form, must write the
    /// same signed bytes for every vector that was not deliberately written otherwise (entities, leading zeros, -0000,
    /// hand-made CDATA, …): 109 of them, in all eight forms. Same bytes, same deterministic signature, same text.
    @Test("the issuer reproduces every valid vector written the way TVEKit writes tokens, byte for byte")
    func issuerMatchesGenerator() throws {
        let file = try #require(MediaTokenVectorFile.shared)
        let key = try RSAPrivateKey(pemRepresentation: try #require(file.keys["primary"]).privateKeyPem)
        var checked = 0
        var forms = Set<String>()
        for test in file.tests where test.results.first == "VALID_TOKEN" && test.trustedKeys == ["primary"] {
            guard let fields = test.fields, let token = try? ShortMediaToken(parsing: test.inputBytes) else { continue }
            let issuer = MediaTokenIssuer(privateKey: key, clock: FixedMediaTokenClock(milliseconds: test.now), form: token.form)
            guard
                let issued = try? issuer.issue(
                    requestorID: fields.requestorID, resourceID: fields.resourceID, mvpdId: fields.mvpdId,
                    sessionGUID: fields.sessionGUID, proxyMvpdId: token.proxyMvpdId, ttl: fields.ttl,
                    issueTime: fields.issueTime)
            else { continue }
            if issued.signedBytes.elementsEqual(token.signedBytes) {
                #expect(issued.signature == token.signature, "#\(test.id)")
                #expect(issued.text == token.text, "#\(test.id)")
                #expect(issued.issueTimeText == fields.issueTimeText, "#\(test.id)")
                checked += 1
                forms.insert("\(fields.form.root)/\(fields.form.signatureInfoEnd)/\(fields.form.issueTimeEncoding)")
            }
        }
        #expect(checked >= 100, "only \(checked) valid vectors came out of the issuer byte for byte (the generator expects 109)")
        #expect(forms.count == 8, "\(forms.sorted())")
        print("media-token vectors: the issuer reproduced \(checked) valid tokens byte for byte, in \(forms.count) forms")
    }
}
