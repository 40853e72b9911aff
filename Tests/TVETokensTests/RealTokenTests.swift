import Foundation
import Testing
import TVECrypto
@testable import TVETokens

/// TestVectors/media-token/real (see its README): a real Adobe short media token of 2017, URL-decoded, and the
/// RSA-1024 key recovered from real tokens — the evidence behind FORMATS.md §1. `real_token_test.json` holds the exact
/// fields, written by the vectors' Python generator after it verified the token with `cryptography`.
struct RealTokenFile: Decodable {
    struct Check: Decodable {
        let now: Int64
        let result: String
    }
    let schema: String
    let token: String
    let publicKey: String
    let keyBits: Int
    let allow1024BitKeys: Bool
    let requestorID: String
    let resourceID: String
    let skewSeconds: Int64
    let now: Int64
    let result: String
    let fields: MediaTokenVectorFile.Fields
    let signedRange: [Int]
    let checks: [Check]

    static let directory = "TestVectors/media-token/real/"

    static func load() throws -> (file: RealTokenFile, token: [UInt8], key: RSAPublicKey) {
        let file = try JSONDecoder().decode(RealTokenFile.self, from: Data(TokenFixtures.bytes(directory + "real_token_test.json")))
        let token = try TokenFixtures.bytes(directory + file.token)
        let key = try RSAPublicKey(encodedKeyOrCertificate: TokenFixtures.bytes(directory + file.publicKey), allowing1024BitKeys: true)
        return (file, token, key)
    }

    func verifier(key: RSAPublicKey, now: Int64? = nil, replayGuard: (any TokenReplayGuard)? = nil) throws -> MediaTokenVerifier {
        try MediaTokenVerifier(
            trustedKeys: [key], requestorID: requestorID, clockSkew: .seconds(skewSeconds),
            clock: FixedMediaTokenClock(milliseconds: now ?? self.now), replayGuard: replayGuard,
            allowing1024BitKeys: allow1024BitKeys)
    }
}

@Suite("Real Adobe media token")
struct RealTokenTests {
    @Test("the expected fields are the ones the evidence states")
    func expectations() throws {
        let (file, token, _) = try RealTokenFile.load()
        #expect(file.schema == "tvekit-media-token-real-v1")
        #expect(file.keyBits == 1024 && file.allow1024BitKeys)
        #expect(file.result == "VALID_TOKEN")
        #expect(file.fields.sessionGUID == "a6c1d2fa9725d7857b6a9d3aa9195040")
        #expect(file.fields.requestorID == "MML")
        #expect(file.fields.resourceID == "truTV")
        #expect(file.fields.ttl == 420_000)
        #expect(file.fields.issueTime == 1_489_621_246_000)  // 2017-03-15 16:40:46 -0700 = 2017-03-15T23:40:46Z
        #expect(file.fields.issueTimeText == "2017-03-15 16:40:46 -0700")
        #expect(file.fields.mvpdId == "TWC")
        #expect(file.fields.proxyMvpdId == "")
        let realForm = MediaTokenVectorFile.Form(
            root: "authToken", signatureInfoEnd: "unslashed", issueTimeEncoding: "dateTime",
            utcOffsetMinutes: -420)
        #expect(file.fields.form == realForm)
        #expect(file.now >= file.fields.issueTime && file.now < file.fields.issueTime + file.fields.ttl)
        #expect(token.starts(with: Array("<signatureInfo>".utf8)))
        #expect(token.last == UInt8(ascii: ">"), "the token file has no trailing newline")
    }

    @Test("the real token parses with its exact fields, form and signed bytes")
    func parses() throws {
        let (file, bytes, _) = try RealTokenFile.load()
        let token = try ShortMediaToken(parsing: bytes)
        #expect(token.sessionGUID == file.fields.sessionGUID)
        #expect(token.requestorID == file.fields.requestorID)
        #expect(token.resourceID == file.fields.resourceID)
        #expect(token.ttl == file.fields.ttl)
        #expect(token.issueTime == file.fields.issueTime)
        #expect(token.issueTimeText == file.fields.issueTimeText)
        #expect(token.mvpdId == file.fields.mvpdId)
        #expect(token.proxyMvpdId == nil, "real tokens have no proxyMvpdId element")
        #expect(token.form.vectorForm == file.fields.form)
        #expect(token.signature.count == 128, "an RSA-1024 signature")
        #expect(token.text == bytes)
        #expect(file.signedRange.count == 2)
        #expect(token.signedRange == file.signedRange[0]..<file.signedRange[1])
        #expect(Array(token.signedBytes) == Array(bytes[file.signedRange[0]..<file.signedRange[1]]))
        #expect(token.signedBytes.starts(with: Array("<authToken>".utf8)))

        // The String entry point reads the same token.
        let fromString = try ShortMediaToken(parsing: String(decoding: bytes, as: UTF8.self))
        #expect(fromString.sessionGUID == token.sessionGUID && fromString.issueTime == token.issueTime)
        #expect(Array(fromString.signedBytes) == Array(token.signedBytes))
        // And the serialized (Base64) form.
        let serialized = Array(Data(bytes).base64EncodedString().utf8)
        let fromBase64 = try ShortMediaToken(parsing: serialized)
        #expect(Array(fromBase64.signedBytes) == Array(token.signedBytes) && fromBase64.form.vectorForm == file.fields.form)
    }

    @Test("the real token verifies under the recovered RSA-1024 key, with its exact fields")
    func verifies() throws {
        let (file, bytes, key) = try RealTokenFile.load()
        let outcome = try file.verifier(key: key).verify(bytes, resourceID: file.resourceID)
        #expect(outcome.result == .validToken, "\(outcome)")
        let token = try #require(outcome.token)
        #expect(token.userSessionGUID == file.fields.sessionGUID)
        #expect(token.requestorID == file.fields.requestorID)
        #expect(token.resourceID == file.fields.resourceID)
        #expect(token.timeToLive == file.fields.ttl)
        #expect(token.timeIssued == file.fields.issueTime)
        #expect(token.issueTimeText == file.fields.issueTimeText)
        #expect(token.mvpdId == file.fields.mvpdId)
        #expect(token.proxyMvpdId == nil)
        #expect(token.form.vectorForm == file.fields.form)

        // Serialized, through the String entry point and without a resource check.
        let serialized = Data(bytes).base64EncodedString()
        #expect(try file.verifier(key: key).verify(serialized, resourceID: file.resourceID).result == .validToken)
        #expect(try file.verifier(key: key).verify(String(decoding: bytes, as: UTF8.self), resourceID: nil).result == .validToken)
    }

    @Test("the real token's validity window: the edges in real_token_test.json")
    func window() throws {
        let (file, bytes, key) = try RealTokenFile.load()
        #expect(file.checks.count >= 3)
        for check in file.checks {
            let outcome = try file.verifier(key: key, now: check.now).verify(bytes, resourceID: file.resourceID)
            #expect(outcome.result.rawValue == check.result, "now \(check.now): \(outcome)")
        }
    }

    @Test("the recovered key is not trusted without the 1024-bit opt-in")
    func needsOptIn() throws {
        let (file, _, key) = try RealTokenFile.load()
        let error = tokenError {
            _ = try MediaTokenVerifier(
                trustedKeys: [key], requestorID: file.requestorID, clockSkew: .zero,
                clock: FixedMediaTokenClock(milliseconds: file.now), replayGuard: nil,
                allowing1024BitKeys: false)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("the real token against other expectations and other bytes")
    func negatives() throws {
        let (file, bytes, key) = try RealTokenFile.load()
        let verifier = try file.verifier(key: key)
        #expect(verifier.verify(bytes, resourceID: "TNT").result == .invalidResourceID)
        let otherRequestor = try MediaTokenVerifier(
            trustedKeys: [key], requestorID: "TVEKit", clockSkew: .zero,
            clock: FixedMediaTokenClock(milliseconds: file.now), replayGuard: nil,
            allowing1024BitKeys: true)
        #expect(otherRequestor.verify(bytes, resourceID: file.resourceID).result == .invalidRequestorID)

        let text = String(decoding: bytes, as: UTF8.self)
        // Any change inside <authToken>…</authToken> breaks the signature, even one that keeps the instant.
        for (from, to) in [
            ("<mvpdId>TWC</mvpdId>", "<mvpdId>TWD</mvpdId>"),
            ("2017-03-15 16:40:46 -0700", "2017-03-15 23:40:46 +0000"),
            ("<ttl>420000</ttl>", "<ttl>0420000</ttl>"),
            ("<resourceID>truTV</resourceID>", "<resourceID><![CDATA[truTV]]></resourceID>"),
        ] {
            #expect(text.contains(from))
            let changed = text.replacingOccurrences(of: from, with: to)
            #expect(verifier.verify(changed, resourceID: file.resourceID).result == .invalidSignature, "\(from) -> \(to)")
        }
        // The signatureInfo end is outside the signed bytes: the well-formed </signatureInfo> verifies too.
        let signatureEnd = try #require(text.range(of: "<signatureInfo><authToken>"))
        let slashed = text.replacingCharacters(in: signatureEnd, with: "</signatureInfo><authToken>")
        #expect(verifier.verify(slashed, resourceID: file.resourceID).result == .validToken)

        // With a replay guard the second use is refused.
        let guarded = try file.verifier(key: key, replayGuard: InMemoryTokenReplayGuard())
        #expect(guarded.verify(bytes, resourceID: file.resourceID).result == .validToken)
        #expect(guarded.verify(Data(bytes).base64EncodedString(), resourceID: file.resourceID).result == .tokenReplayed)
    }
}
