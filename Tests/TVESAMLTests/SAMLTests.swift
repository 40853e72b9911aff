import Foundation
import Testing
import TVECrypto
@testable import TVESAML

@Suite("SAML responses")
struct SAMLTests {
    typealias F = SAMLFixtures

    @Test(
        "a signed Response, a signed Assertion and both are accepted with the exact values",
        arguments: [SAMLSigner.Targets.root, .assertion, [.root, .assertion]])
    func accepts(targets: SAMLSigner.Targets) throws {
        let xml = try F.signed(F.response(), targets)
        let result = try F.verifier().verify(Array(xml.utf8))
        #expect(result.nameID == "user-1@mvpd.example")
        #expect(
            result.attributes == [
                SSOAttribute(name: "MaxTVRating", values: ["TV-14"]), SSOAttribute(name: "zip", values: ["12345", "34567"]),
            ])
        #expect(result.issuer == F.idp)
        #expect(result.sessionIndex == "_s1")
        #expect(result.notOnOrAfterText == "2026-01-01T00:10:00Z")
        #expect(result.notOnOrAfter == Date(timeIntervalSince1970: 1_767_226_200))
        #expect(result.signedResponse == targets.contains(.root))
        #expect(result.signedAssertion == targets.contains(.assertion))
    }

    @Test("Base64 SAMLResponse input, CRLF-wrapped, is accepted; escapes and 4-byte UTF-8 come back exact")
    func base64AndEscapes() throws {
        let xml = try F.signed(F.response(assertion: F.assertion(nameID: "a&amp;b&lt;c&gt;😀", attributes: [("name", ["é&amp;😀"])])))
        let base64 = Base64.encode(Array(xml.utf8), lineLength: 76).replacingOccurrences(of: "\n", with: "\r\n")
        let result = try F.verifier().verify(Array(base64.utf8))
        #expect(result.nameID == "a&b<c>😀")
        #expect(result[attribute: "name"] == ["é&😀"])
    }

    @Test("rejectsContentTampering: a NameID edited after signing fails the digest")
    func rejectsContentTampering() throws {
        let xml = try F.signed(F.response()).replacingOccurrences(of: "user-1@mvpd.example", with: "admin@mvpd.example")
        #expect(F.rule(xml) == "signature.digest")
    }

    @Test("rejectsFlippedSignatureValue: one changed SignatureValue character fails with the pinned key")
    func rejectsFlippedSignatureValue() throws {
        let xml = try F.signed(F.response())
        let range = try #require(xml.range(of: "<ds:SignatureValue>"))
        var characters = Array(xml)
        let index = xml.distance(from: xml.startIndex, to: range.upperBound) + 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        #expect(F.rule(String(characters)) == "signature.value")
    }

    @Test("rejectsAttackerKey: a response signed by another key, its certificate in KeyInfo, fails")
    func rejectsAttackerKey() throws {
        #expect(F.rule(try F.signed(F.response(), key: F.attackerKey)) == "signature.value")
    }

    @Test("rejectsUnsignedResponse: no signature at all")
    func rejectsUnsignedResponse() {
        #expect(F.rule(F.response()) == "signature.missing")
    }

    @Test("rejectsExtraUnsignedAssertion: an evil Assertion beside the signed one (XSW)")
    func rejectsExtraUnsignedAssertion() throws {
        let signed = try F.signed(F.response(), .assertion)
        let evil = F.assertion(id: "_evil", nameID: "admin@mvpd.example")
        let position = try #require(signed.range(of: "<saml:Assertion "))
        var before = signed
        before.insert(contentsOf: evil, at: position.lowerBound)
        #expect(F.rule(before) == "structure.assertionCount")
        let after = signed.replacingOccurrences(of: "</samlp:Response>", with: evil + "</samlp:Response>")
        #expect(F.rule(after) == "structure.assertionCount")
    }

    @Test("rejectsDuplicateID: an evil Assertion reusing the signed ID")
    func rejectsDuplicateID() throws {
        let signed = try F.signed(F.response(), .assertion)
        let evil = F.assertion(id: "_a1", nameID: "admin@mvpd.example")
        let xml = signed.replacingOccurrences(of: "<samlp:Status>", with: "<samlp:Extensions>\(evil)</samlp:Extensions><samlp:Status>")
        #expect(F.rule(xml) == "structure.duplicateID")
    }

    @Test("rejectsNamespacedIDPollution: a pol:ID look-alike is not an ID, and the evil Assertion still counts")
    func rejectsNamespacedIDPollution() throws {
        let signed = try F.signed(F.response(), .assertion)
        let evil = F.assertion(id: "_evil", nameID: "admin@mvpd.example")
            .replacingOccurrences(of: "ID=\"_evil\"", with: "xmlns:pol=\"urn:x\" pol:ID=\"_a1\" ID=\"_evil\"")
        let xml = signed.replacingOccurrences(of: "<samlp:Status>", with: "<samlp:Extensions>\(evil)</samlp:Extensions><samlp:Status>")
        #expect(F.rule(xml) == "structure.assertionCount")
    }

    @Test("rejectsCommentInjection: a comment inside the signed NameID (the signature still holds under exc-c14n)")
    func rejectsCommentInjection() throws {
        let signed = try F.signed(F.response(assertion: F.assertion(nameID: "user-1@mvpd.example.attacker.test")))
        let xml = signed.replacingOccurrences(of: "user-1@mvpd.example.attacker.test", with: "user-1@mvpd.example<!---->.attacker.test")
        #expect(F.rule(xml) == "structure.commentOrPI")
    }

    @Test("rejectsBillionLaughs and XXE: any DOCTYPE is refused before parsing")
    func rejectsDoctype() {
        let laughs =
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>" + F.response()
        #expect(F.rule(laughs) == "input.doctype")
        let xxe = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" + F.response(extra: "<samlp:Extensions>&x;</samlp:Extensions>")
        #expect(F.rule(xxe) == "input.doctype")
    }

    @Test("rejectsVoidCanonicalization: a canonicalization error is a reject, never a digest of empty output")
    func rejectsVoidCanonicalization() throws {
        let signed = try F.signed(F.response())
        // A relative namespace URI makes libxml2's C14N fail on the signed element.
        let xml = signed.replacingOccurrences(
            of: "<saml:AttributeStatement>", with: "<saml:AttributeStatement><r:x xmlns:r=\"relative/uri\"/>")
        #expect(F.rule(xml) == "signature.canonicalization")
    }

    @Test("semantic failures are all reported: expired, wrong audience, destination, issuer, status")
    func semantics() throws {
        #expect(
            F.rule(try F.signed(F.response(assertion: F.assertion(notOnOrAfter: "2026-01-01T00:01:59Z"))))
                == "assertion.subjectConfirmation")
        #expect(F.rule(try F.signed(F.response(assertion: F.assertion(notBefore: "2026-01-01T00:08:01Z")))) == "assertion.notBefore")
        #expect(F.rule(try F.signed(F.response(assertion: F.assertion(notBefore: "2026-01-01T00:07:59Z")))) == nil)
        #expect(
            F.rule(try F.signed(F.response(assertion: F.assertion(audience: "https://other.example"))))
                == "assertion.audience")
        #expect(F.rule(try F.signed(F.response(destination: "https://evil.example/acs"))) == "response.destination")
        #expect(F.rule(try F.signed(F.response(issuer: "https://evil.example"))) == "response.issuer")
        #expect(F.rule(try F.signed(F.response(status: "urn:oasis:names:tc:SAML:2.0:status:Requester"))) == "response.status")
        #expect(F.rule(try F.signed(F.response(assertion: F.assertion(authn: false)))) == "assertion.authnStatement")
        let wrongRequest = try F.verifier(requestID: "_other")
        #expect(F.rule(try F.signed(F.response()), verifier: wrongRequest) == "response.inResponseTo")
        do {
            _ = try F.verifier(now: Date(timeIntervalSince1970: 1_767_230_000)).verify(Array(try F.signed(F.response()).utf8))
            Issue.record("an expired response was accepted")
        } catch let error as SAMLError {
            #expect(Set(error.failures.map(\.rule.code)) == ["assertion.subjectConfirmation", "assertion.notOnOrAfter"])
        }
    }

    @Test("rejectsUnsolicitedByDefault: no request ID needs an explicit opt-in to IdP-initiated responses")
    func rejectsUnsolicitedByDefault() throws {
        let certificate = try #require(F.certificate)
        #expect(throws: SAMLError.self) {
            try SAMLResponseVerifier(
                configuration: SAMLVerifierConfiguration(
                    idpCertificates: [certificate], idpEntityID: F.idp,
                    spEntityID: F.sp, acsURL: F.acs))
        }
        let verifier = try F.verifier(requestID: nil)
        #expect(F.rule(try F.signed(F.response()), verifier: verifier) == nil)
    }

    @Test("rejectsStuffedSignedInfo: a SignedInfo holding a large tree is refused before canonicalization")
    func rejectsStuffedSignedInfo() throws {
        let signed = try F.signed(F.response())
        let stuffing = String(repeating: "<x:y xmlns:x=\"urn:x\">", count: 40) + String(repeating: "</x:y>", count: 40)
        let xml = signed.replacingOccurrences(of: "<ds:DigestValue>", with: "<ds:DigestValue>\(stuffing)")
        #expect(F.rule(xml) == "signature.profile")
    }

    @Test(
        "garbage input is rejected with a rule, never a crash",
        arguments: [
            "", "   ", "not xml", "<", "<a>", "@@@@", "PHNhbWxwOlJlc3BvbnNl", "\u{FEFF}<x/>",
        ])
    func garbage(input: String) {
        #expect(F.rule(input) != nil)
    }

    @Test("64 concurrent verifications agree")
    func concurrent() async throws {
        let xml = Array(try F.signed(F.response(), [.root, .assertion]).utf8)
        let verifier = try F.verifier()
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { try? verifier.verify(xml).nameID } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 == "user-1@mvpd.example" })
    }
}

@Suite("SAML response builder")
struct SAMLBuilderTests {
    @Test("a built and signed response verifies; escaping and dates are exact")
    func builtResponseVerifies() throws {
        let issued = Date(timeIntervalSince1970: 1_767_225_600)
        let builder = SAMLResponseBuilder(
            issuer: SAMLFixtures.idp, destination: SAMLFixtures.acs, audience: SAMLFixtures.sp,
            inResponseTo: "_req-0001", nameID: "a<b>&\"c\"", issueInstant: issued,
            attributes: [SSOAttribute(name: "zip", values: ["1&2"])])
        #expect(builder.xml().contains("IssueInstant=\"2026-01-01T00:00:00Z\""))
        #expect(SAMLResponseBuilder.dateTime(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        let signed = try SAMLFixtures.signed(builder.xml(), .assertion)
        let result = try SAMLFixtures.verifier().verify(Array(signed.utf8))
        #expect(result.nameID == "a<b>&\"c\"")
        #expect(result[attribute: "zip"] == ["1&2"])
    }
}
