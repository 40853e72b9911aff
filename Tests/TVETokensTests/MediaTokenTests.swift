import Foundation
import Testing
import TVECrypto
@testable import TVETokens

@Suite("Media tokens: codec")
struct MediaTokenCodecTests {
    @Test("issue, serialize, parse: every field survives, including escapes and non-ASCII")
    func roundTrip() throws {
        let resource = #"<rss version="2.0"><channel><title>News & 'Weather'</title></channel></rss>"#
        let token = try TokenFixtures.token(resource: resource, mvpd: "MVPD-é-日本", proxy: "Proxy&Co")
        let text = String(decoding: token.text, as: UTF8.self)
        #expect(text.hasPrefix("<signatureInfo>"))
        // Values with markup are written as CDATA, as Adobe writes MRSS; the others as they are.
        #expect(
            text.contains(
                #"<resourceID><![CDATA[<rss version="2.0"><channel><title>News & 'Weather'</title></channel></rss>]]></resourceID>"#))
        #expect(text.contains("<proxyMvpdId><![CDATA[Proxy&Co]]></proxyMvpdId>"))
        #expect(text.contains("<mvpdId>MVPD-é-日本</mvpdId>"))
        for input in [
            token.serialized, text, Base64.encode(token.text, lineLength: 76), " " + Base64.encode(token.text, lineLength: 64) + "\r\n",
        ] {
            let parsed = try ShortMediaToken(parsing: input)
            #expect(parsed.resourceID == resource)
            #expect(parsed.mvpdId == "MVPD-é-日本")
            #expect(parsed.proxyMvpdId == "Proxy&Co")
            #expect(parsed.ttl == 420_000)
            #expect(parsed.issueTime == TokenFixtures.now - 100_000)
            #expect(parsed.signedBytes.elementsEqual(token.signedBytes))
            #expect(parsed.signature == token.signature)
        }
    }

    @Test("the signed bytes are exactly the root element, in either form")
    func signedBytes() throws {
        let token = try TokenFixtures.token()
        let signed = String(decoding: token.signedBytes, as: UTF8.self)
        #expect(signed.hasPrefix("<authToken><sessionGUID>"))
        #expect(signed.hasSuffix("</mvpdId></authToken>"))
        #expect(TokenFixtures.key.publicKey.isValidSignature(token.signature, for: token.signedBytes))
        let documented = try TokenFixtures.token(form: .documented)
        let documentedSigned = String(decoding: documented.signedBytes, as: UTF8.self)
        #expect(documentedSigned.hasPrefix("<shortAuthorizationToken><sessionGUID>"))
        #expect(documentedSigned.hasSuffix("</mvpdId></shortAuthorizationToken>"))
        #expect(TokenFixtures.key.publicKey.isValidSignature(documented.signature, for: documented.signedBytes))
    }

    @Test("proxyMvpdId absent, empty and present")
    func proxyMvpdId() throws {
        #expect(try ShortMediaToken(parsing: TokenFixtures.token(proxy: nil).serialized).proxyMvpdId == nil)
        #expect(try ShortMediaToken(parsing: TokenFixtures.token(proxy: "").serialized).proxyMvpdId == "")
        #expect(try ShortMediaToken(parsing: TokenFixtures.token(proxy: "P").serialized).proxyMvpdId == "P")
    }

    static let base =
        "<signatureInfo>AAAA</signatureInfo><shortAuthorizationToken><sessionGUID>g</sessionGUID><requestorID>r</requestorID><resourceID>s</resourceID><ttl>1</ttl><issueTime>2</issueTime><mvpdId>m</mvpdId></shortAuthorizationToken>"

    @Test("the base sample parses")
    func baseSampleParses() throws {
        let token = try ShortMediaToken(parsing: Self.base)
        #expect(token.ttl == 1 && token.issueTime == 2 && token.signature == [0, 0, 0])
    }

    static func edit(_ old: String, _ new: String) -> String { base.replacingOccurrences(of: old, with: new) }

    static let malformedCases: [(String, String)] = {
        var cases: [(String, String)] = []
        cases.append(("", "empty"))
        cases.append(("   ", "whitespace only"))
        cases.append(("<?xml version=\"1.0\"?>" + base, "XML declaration"))
        cases.append(("<!DOCTYPE x>" + base, "DOCTYPE"))
        cases.append((edit("<ttl>1</ttl>", "<ttl>1</ttl><!-- c -->"), "comment"))
        cases.append((edit(">s<", "><![CDATA[s<"), "unterminated CDATA"))
        cases.append((edit(">s<", "><![cdata[s]]><"), "lower-case CDATA"))
        cases.append((edit(">s<", ">a]]>b<"), "]]> outside CDATA"))
        cases.append((edit("<resourceID>s</resourceID>", "<resourceID><![CDATA[]]></resourceID>"), "empty CDATA as a required field"))
        cases.append((edit("</shortAuthorizationToken>", "</authToken>"), "root closed by the other name"))
        cases.append((edit("<signatureInfo>AAAA</signatureInfo>", "<signatureInfo/>"), "self-closing signatureInfo"))
        cases.append((edit("</signatureInfo>", "<signatureInfo/>"), "self-closing signatureInfo end"))
        cases.append((edit("<shortAuthorizationToken>", "<AuthToken>"), "other root"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15T16:40:46 -0700</issueTime>"), "T in the date"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-02-29 16:40:46 -0700</issueTime>"), "29 February of a common year"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2100-02-29 00:00:00 +0000</issueTime>"), "29 February 2100"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-13-15 16:40:46 -0700</issueTime>"), "month 13"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15 24:00:00 -0700</issueTime>"), "hour 24"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15 23:59:60 -0700</issueTime>"), "leap second"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15 16:40:46 -2400</issueTime>"), "offset hours 24"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15 16:40:46 *0700</issueTime>"), "offset without sign"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>2017-03-15 16:40:46</issueTime>"), "no offset"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>1969-12-31 23:59:59 +0000</issueTime>"), "before 1970"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>1970-01-01 00:30:00 +0100</issueTime>"), "instant before 1970"))
        cases.append((edit("<sessionGUID>", "<sessionGUID a=\"1\">"), "attribute"))
        cases.append((edit("</sessionGUID><requestorID>", "</sessionGUID> <requestorID>"), "space between elements"))
        cases.append((edit("</signatureInfo>", "</signatureInfo>\n"), "newline between elements"))
        cases.append((edit("<ttl>1</ttl><issueTime>2</issueTime>", "<issueTime>2</issueTime><ttl>1</ttl>"), "order"))
        cases.append((edit("<mvpdId>m</mvpdId>", ""), "missing mvpdId"))
        cases.append((edit("<mvpdId>m</mvpdId>", "<mvpdId>m</mvpdId><mvpdId>m</mvpdId>"), "duplicate"))
        cases.append((edit("<mvpdId>m</mvpdId>", "<mvpdId>m</mvpdId><extra>x</extra>"), "unknown element"))
        cases.append((edit(">s<", "><b>s</b><"), "nested element"))
        cases.append((edit("</mvpdId>", "</mvpdId><proxyMvpdId/>"), "self-closing proxyMvpdId"))
        cases.append((base + "x", "trailing bytes"))
        cases.append((base + "\n", "trailing newline"))
        cases.append((edit(">s<", ">a&nbsp;b<"), "unknown entity"))
        cases.append((edit(">s<", ">a&#60;b<"), "numeric character reference"))
        cases.append((edit(">s<", ">a & b<"), "bare ampersand"))
        cases.append((edit(">s<", ">a&amp<"), "unterminated entity"))
        cases.append((edit("<ttl>1</ttl>", "<ttl>+1</ttl>"), "plus sign"))
        cases.append((edit("<ttl>1</ttl>", "<ttl>-1</ttl>"), "minus sign"))
        cases.append((edit("<ttl>1</ttl>", "<ttl></ttl>"), "empty ttl"))
        cases.append((edit("<ttl>1</ttl>", "<ttl>9223372036854775808</ttl>"), "ttl overflow"))
        cases.append((edit("<issueTime>2</issueTime>", "<issueTime>99999999999999999999</issueTime>"), "issueTime overflow"))
        cases.append((edit("<ttl>1</ttl>", "<ttl> 1</ttl>"), "space in integer"))
        cases.append((edit("<sessionGUID>g</sessionGUID>", "<sessionGUID></sessionGUID>"), "empty sessionGUID"))
        cases.append((edit("AAAA", "AA!A"), "signature not Base64"))
        cases.append((edit("AAAA", "AA AA"), "whitespace in signature"))
        cases.append((edit("AAAA", "AAA"), "unpadded signature"))
        cases.append((edit("<signatureInfo>", "<SignatureInfo>"), "upper-case tag"))
        cases.append((edit("</sessionGUID>", "</sessionGuid>"), "mismatched closing tag"))
        cases.append(("bm90IGEgdG9rZW4=", "Base64 of something else"))
        return cases
    }()

    @Test("malformed tokens are malformedToken, never a crash", arguments: malformedCases)
    func malformed(input: String, what: String) {
        let error = tokenError { _ = try ShortMediaToken(parsing: input) }
        #expect(error?.code == .malformedToken, "\(what): \(String(describing: error))")
    }

    @Test(
        "invalid UTF-8 in a field is rejected", arguments: [[0x80], [0xC0, 0xAF], [0xE6, 0x97], [0xED, 0xA0, 0x80], [0xFF]] as [[UInt8]])
    func invalidUTF8(bad: [UInt8]) {
        let bytes = Array(Self.base.replacingOccurrences(of: ">s<", with: ">X<").utf8)
        guard let x = bytes.firstIndex(of: UInt8(ascii: "X")) else { Issue.record("no X"); return }
        var broken = bytes
        broken.replaceSubrange(x...x, with: bad)
        #expect(tokenError { _ = try ShortMediaToken(parsing: broken) }?.code == .malformedToken)
        #expect(tokenError { _ = try ShortMediaToken(parsing: Base64.encode(broken)) }?.code == .malformedToken)
    }

    @Test("size limits: 64 KiB input and 16 KiB fields")
    func limits() throws {
        let big = String(repeating: "A", count: 65_540)
        #expect(tokenError { _ = try ShortMediaToken(parsing: big) }?.code == .inputTooLarge)
        let field = Self.base.replacingOccurrences(of: ">s<", with: ">" + String(repeating: "a", count: 16_385) + "<")
        #expect(tokenError { _ = try ShortMediaToken(parsing: field) }?.code == .inputTooLarge)
        let escaped = Self.base.replacingOccurrences(of: ">s<", with: ">" + String(repeating: "&amp;", count: 16_385) + "<")
        #expect(tokenError { _ = try ShortMediaToken(parsing: escaped) }?.code == .inputTooLarge)
        let exact = Self.base.replacingOccurrences(of: ">s<", with: ">" + String(repeating: "a", count: 16_384) + "<")
        #expect(try ShortMediaToken(parsing: exact).resourceID.utf8.count == 16_384)
    }

    @Test("leading zeros in integers are accepted")
    func leadingZeros() throws {
        let token = try ShortMediaToken(parsing: Self.base.replacingOccurrences(of: "<ttl>1</ttl>", with: "<ttl>000420000</ttl>"))
        #expect(token.ttl == 420_000)
    }

    @Test("every truncation and every single-byte corruption of a token is a typed error or a different token")
    func truncationsAndCorruptions() throws {
        let token = try TokenFixtures.token()
        let text = token.text
        for length in 0..<text.count {
            _ = try? ShortMediaToken(parsing: Array(text[..<length]))
        }
        let verifier = try TokenFixtures.verifier()
        for index in stride(from: 0, to: text.count, by: 7) {
            var corrupted = text
            corrupted[index] ^= 0x20
            let outcome = verifier.verify(corrupted, resourceID: "tvekit-resource")
            #expect(!outcome.isValid, "byte \(index) flipped but the token still verifies")
        }
    }

    @Test("the issuer refuses fields it cannot encode")
    func issuerRefusesBadFields() {
        #expect(tokenError { _ = try TokenFixtures.token(requestor: "") }?.code == .invalidField)
        #expect(tokenError { _ = try TokenFixtures.token(ttl: -1) }?.code == .invalidField)
        #expect(tokenError { _ = try TokenFixtures.token(resource: String(repeating: "x", count: 16_385)) }?.code == .invalidField)
    }
}

@Suite("Media tokens: verifier")
struct MediaTokenVerifierTests {
    @Test("a fresh token is VALID_TOKEN with the Java getters")
    func valid() throws {
        let token = try TokenFixtures.token(proxy: "P")
        let outcome = try TokenFixtures.verifier().verify(token.serialized, resourceID: "tvekit-resource")
        #expect(outcome.result == .validToken)
        let verified = try #require(outcome.token)
        #expect(verified.resourceID == "tvekit-resource")
        #expect(verified.timeIssued == TokenFixtures.now - 100_000)
        #expect(verified.timeToLive == 420_000)
        #expect(verified.userSessionGUID == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(verified.mvpdId == "TestMVPD")
        #expect(verified.proxyMvpdId == "P")
        #expect(try TokenFixtures.verifier().verify(token.serialized, resourceID: nil).isValid)
    }

    @Test(
        "each result code",
        arguments: [
            ("signature", MediaTokenVerification.Result.invalidSignature),
            ("requestor", .invalidRequestorID), ("resource", .invalidResourceID), ("expired", .tokenExpired),
            ("future", .tokenNotYetValid), ("format", .invalidTokenFormat),
        ])
    func resultCodes(kind: String, expected: MediaTokenVerification.Result) throws {
        let verifier = try TokenFixtures.verifier()
        let input: String
        switch kind {
        case "signature":
            input = try MediaTokenIssuer(privateKey: TokenFixtures.otherKey).issue(
                requestorID: "tvekit-test", resourceID: "tvekit-resource",
                mvpdId: "M", issueTime: TokenFixtures.now
            ).serialized
        case "requestor": input = try TokenFixtures.token(requestor: "someone-else").serialized
        case "resource": input = try TokenFixtures.token(resource: "other").serialized
        case "expired": input = try TokenFixtures.token(ttl: 1000, issueTime: TokenFixtures.now - 1000).serialized
        case "future": input = try TokenFixtures.token(issueTime: TokenFixtures.now + 1000).serialized
        default: input = "garbage"
        }
        let outcome = verifier.verify(input, resourceID: "tvekit-resource")
        #expect(outcome.result == expected, "\(kind): \(outcome)")
        #expect(outcome.token == nil)
        #expect(!outcome.reason.isEmpty)
    }

    @Test("fieldsOfForgedTokenAreNeverReturned: a token whose signature fails yields no fields")
    func fieldsOfForgedTokenAreNeverReturned() throws {
        let token = try TokenFixtures.token()
        var text = String(decoding: token.text, as: UTF8.self)
        text = text.replacingOccurrences(of: "tvekit-resource", with: "premium-channel")
        let outcome = try TokenFixtures.verifier().verify(text, resourceID: "premium-channel")
        #expect(outcome.result == .invalidSignature)
        #expect(outcome.token == nil)
    }

    @Test("key rotation: any trusted key may have signed")
    func keyRotation() throws {
        let rotated = try MediaTokenIssuer(privateKey: TokenFixtures.otherKey, clock: FixedMediaTokenClock(milliseconds: TokenFixtures.now))
            .issue(requestorID: "tvekit-test", resourceID: "r", mvpdId: "M")
        let both = try TokenFixtures.verifier(keys: [TokenFixtures.key.publicKey, TokenFixtures.otherKey.publicKey])
        #expect(both.verify(rotated.serialized).isValid)
        #expect(try TokenFixtures.verifier().verify(rotated.serialized).result == .invalidSignature)
    }

    @Test(
        "key rotation across key sizes: a token signed by a later key verifies after a first key of another size, and one-time use holds whichever key signed"
    )
    func keyRotationAcrossSizes() throws {
        let pem = try TokenFixtures.bytes("TestVectors/fixtures/rsa1024.spki.pem")
        let legacy = try RSAPublicKey(encodedKeyOrCertificate: pem, allowing1024BitKeys: true)
        let token = try TokenFixtures.token().serialized
        let replayGuard = InMemoryTokenReplayGuard()
        let verifier = try MediaTokenVerifier(
            trustedKeys: [legacy, TokenFixtures.otherKey.publicKey, TokenFixtures.key.publicKey], requestorID: "tvekit-test",
            clock: FixedMediaTokenClock(milliseconds: TokenFixtures.now), replayGuard: replayGuard, allowing1024BitKeys: true)
        #expect(verifier.verify(token).isValid)
        #expect(verifier.verify(token).result == .tokenReplayed)
        // The replay key is the SHA-256 of the signed bytes, the same whichever key verified.
        let parsed = try ShortMediaToken(parsing: token)
        let pending = verifier.verifyAwaitingReplayCheck(token)
        guard case .awaitingReplayCheck(let check) = pending else {
            Issue.record("the token should await its replay check")
            return
        }
        #expect(check.key == (try TokenReplayKey(signedBytes: parsed.signedBytes)))
    }

    @Test("time window boundaries with and without skew")
    func timeWindow() throws {
        let issued = TokenFixtures.now
        let token = try TokenFixtures.token(ttl: 60_000, issueTime: issued).serialized
        func result(at now: Int64, skew: Int64 = 0) throws -> MediaTokenVerification.Result {
            try TokenFixtures.verifier(now: now, skewSeconds: skew).verify(token).result
        }
        #expect(try result(at: issued) == .validToken)
        #expect(try result(at: issued - 1) == .tokenNotYetValid)
        #expect(try result(at: issued + 59_999) == .validToken)
        #expect(try result(at: issued + 60_000) == .tokenExpired)
        #expect(try result(at: issued - 5_000, skew: 5) == .validToken)
        #expect(try result(at: issued - 5_001, skew: 5) == .tokenNotYetValid)
        #expect(try result(at: issued + 64_999, skew: 5) == .validToken)
        #expect(try result(at: issued + 65_000, skew: 5) == .tokenExpired)
    }

    @Test("timeArithmeticSaturates: extreme issue times and lifetimes never overflow")
    func timeArithmeticSaturates() throws {
        let far = try TokenFixtures.token(ttl: 10_000, issueTime: Int64.max - 807, form: .documented).serialized
        #expect(try TokenFixtures.verifier(skewSeconds: 60).verify(far).result == .tokenNotYetValid)
        let forever = try TokenFixtures.token(ttl: Int64.max, issueTime: TokenFixtures.now - 1000).serialized
        #expect(try TokenFixtures.verifier(skewSeconds: 60).verify(forever).result == .validToken)
    }

    @Test("requestorComparisonIsExact: no Unicode normalisation, no case folding")
    func requestorComparisonIsExact() throws {
        let precomposed = try MediaTokenVerifier(
            trustedKeys: [TokenFixtures.key.publicKey], requestorID: "caf\u{E9}",
            clock: FixedMediaTokenClock(milliseconds: TokenFixtures.now))
        let decomposed = try TokenFixtures.token(requestor: "cafe\u{301}").serialized
        #expect(precomposed.verify(decomposed).result == .invalidRequestorID)
        #expect(try TokenFixtures.verifier().verify(TokenFixtures.token(requestor: "TVEKIT-TEST").serialized).result == .invalidRequestorID)
    }

    @Test("check order: signature before requestor before resource before time")
    func checkOrder() throws {
        let verifier = try TokenFixtures.verifier()
        let forged = try MediaTokenIssuer(privateKey: TokenFixtures.otherKey).issue(
            requestorID: "x", resourceID: "y", mvpdId: "M",
            issueTime: 0)
        #expect(verifier.verify(forged.serialized, resourceID: "z").result == .invalidSignature)
        let wrongBoth = try TokenFixtures.token(requestor: "x", resource: "y", issueTime: 0)
        #expect(verifier.verify(wrongBoth.serialized, resourceID: "z").result == .invalidRequestorID)
        let wrongResourceExpired = try TokenFixtures.token(resource: "y", issueTime: 0)
        #expect(verifier.verify(wrongResourceExpired.serialized, resourceID: "z").result == .invalidResourceID)
    }

    @Test("tokenReplayIsRejected: with the replay guard a token verifies once, in any encoding")
    func tokenReplayIsRejected() throws {
        let verifier = try TokenFixtures.verifier(replayGuard: InMemoryTokenReplayGuard())
        let token = try TokenFixtures.token()
        #expect(verifier.verify(token.serialized).result == .validToken)
        #expect(verifier.verify(token.serialized).result == .tokenReplayed)
        #expect(verifier.verify(String(decoding: token.text, as: UTF8.self)).result == .tokenReplayed)
        #expect(verifier.verify(Base64.encode(token.text, lineLength: 76)).result == .tokenReplayed)
        let noGuard = try TokenFixtures.verifier()
        #expect(noGuard.verify(token.serialized).isValid && noGuard.verify(token.serialized).isValid)
    }

    @Test("the replay guard forgets expired tokens and fails closed when full")
    func replayGuardCapacity() throws {
        let guardian = InMemoryTokenReplayGuard(capacity: 2)
        let keys = try (0..<3).map { try TokenReplayKey(signedBytes: [UInt8($0)]) }
        #expect(guardian.recordFirstUse(of: keys[0], expiresAt: 100, now: 0))
        #expect(guardian.recordFirstUse(of: keys[1], expiresAt: 200, now: 0))
        #expect(!guardian.recordFirstUse(of: keys[2], expiresAt: 300, now: 50), "full: must fail closed")
        #expect(!guardian.recordFirstUse(of: keys[0], expiresAt: 100, now: 99), "replay")
        #expect(guardian.recordFirstUse(of: keys[2], expiresAt: 300, now: 100), "keys[0] expired at 100, room again")
        #expect(guardian.recordFirstUse(of: keys[0], expiresAt: 400, now: 200), "keys[1] expired too; keys[0] is new again")
        #expect(guardian.count == 2)
    }

    @Test("one verifier shared by 64 concurrent tasks, with the replay guard counting each token once")
    func concurrentVerification() async throws {
        let verifier = try TokenFixtures.verifier(replayGuard: InMemoryTokenReplayGuard())
        let tokens = try (0..<32).map { try TokenFixtures.token(resource: "r\($0)").serialized }
        let valid = await withTaskGroup(of: Int.self, returning: Int.self) { group in
            for task in 0..<64 {
                group.addTask {
                    var count = 0
                    for (index, token) in tokens.enumerated() where verifier.verify(token, resourceID: "r\(index)").isValid {
                        count += 1
                        _ = task
                    }
                    return count
                }
            }
            var total = 0
            for await count in group { total += count }
            return total
        }
        #expect(valid == tokens.count, "each of the \(tokens.count) tokens must be accepted exactly once")
    }

    @Test("configuration errors")
    func configuration() {
        #expect(tokenError { _ = try MediaTokenVerifier(trustedKeys: [], requestorID: "r") }?.code == .invalidConfiguration)
        #expect(
            tokenError { _ = try MediaTokenVerifier(trustedKeys: [TokenFixtures.key.publicKey], requestorID: "") }?.code
                == .invalidConfiguration)
        #expect(
            tokenError {
                _ = try MediaTokenVerifier(trustedKeys: [TokenFixtures.key.publicKey], requestorID: "r", clockSkew: .seconds(90_000))
            }?.code
                == .invalidConfiguration)
    }
}
