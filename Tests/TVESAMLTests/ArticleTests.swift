import Foundation
import TVECrypto
import TVESAML
import TVETestSupport
import Testing

/// The code of the article "Checking a SAML response" (Sources/TVESAML/Docs.docc/CheckingSAMLResponses.md), line for
/// line, run with the committed fixture key and certificate standing for the MVPD identity provider's.
@Suite("Article: Checking a SAML response")
struct CheckingSAMLResponsesArticleTests {
    static let idpKey = Fixtures.leafKey
    static let idpCertificate = Fixtures.leafCertificate

    /// A response built now, both the Response and the Assertion signed, as Base64 (the SAMLResponse form value).
    static func signedResponse() throws -> [UInt8] {
        let builder = SAMLResponseBuilder(
            issuer: "https://idp.mvpd.example/saml",
            destination: "https://sp.tvekit.example/saml/acs",
            audience: "https://sp.tvekit.example/saml",
            inResponseTo: "_req-0001",
            nameID: "user-1@mvpd.example",
            attributes: [SSOAttribute(name: "zip", values: ["12345", "34567"])])
        return try SAMLSigner(privateKey: idpKey, certificate: idpCertificate).sign(
            Array(builder.xml().utf8), targets: [.root, .assertion])
    }

    static func configuration() throws -> SAMLVerifierConfiguration {
        try SAMLVerifierConfiguration(
            idpCertificates: [idpCertificate],
            idpEntityID: "https://idp.mvpd.example/saml",
            spEntityID: "https://sp.tvekit.example/saml",
            acsURL: "https://sp.tvekit.example/saml/acs",
            requestID: "_req-0001",
            clockSkew: .seconds(180))
    }

    @Test("sign a test response, configure a verifier, verify the response and read the assertion")
    func signConfigureVerifyRead() throws {
        let idpKey = Self.idpKey
        let idpCertificate = Self.idpCertificate

        // Signing a test response.
        let builder = SAMLResponseBuilder(
            issuer: "https://idp.mvpd.example/saml",
            destination: "https://sp.tvekit.example/saml/acs",
            audience: "https://sp.tvekit.example/saml",
            inResponseTo: "_req-0001",
            nameID: "user-1@mvpd.example",
            attributes: [SSOAttribute(name: "zip", values: ["12345", "34567"])])
        let signer = SAMLSigner(privateKey: idpKey, certificate: idpCertificate)
        let signed = try signer.sign(Array(builder.xml().utf8), targets: [.root, .assertion])
        let samlResponse = Array(Base64.encode(signed).utf8)  // the SAMLResponse form value

        // Configuring the verifier.
        let configuration = try SAMLVerifierConfiguration(
            idpCertificates: [idpCertificate],
            idpEntityID: "https://idp.mvpd.example/saml",
            spEntityID: "https://sp.tvekit.example/saml",
            acsURL: "https://sp.tvekit.example/saml/acs",
            requestID: "_req-0001",
            clockSkew: .seconds(180))
        let verifier = try SAMLResponseVerifier(configuration: configuration)

        // Verifying and reading.
        let assertion = try verifier.verify(samlResponse)
        let subscriber = assertion.nameID  // "user-1@mvpd.example"
        let zip = assertion[attribute: "zip"]  // ["12345", "34567"]
        let bothSigned = assertion.signedResponse && assertion.signedAssertion  // true: signed with [.root, .assertion]

        #expect(subscriber == "user-1@mvpd.example")
        #expect(zip == ["12345", "34567"])
        #expect(bothSigned)
        #expect(assertion.issuer == "https://idp.mvpd.example/saml")
        #expect(assertion.nameIDFormat == "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent")
        #expect(assertion.assertionID == builder.assertionID)
        #expect(assertion.sessionIndex == builder.sessionIndex)
        let notOnOrAfter = try #require(assertion.notOnOrAfter)
        #expect(notOnOrAfter > Date())
        // The raw XML verifies as well as its Base64.
        #expect(try verifier.verify(signed).nameID == "user-1@mvpd.example")

        // Refusing a replay.
        var seenAssertionIDs: Set<String> = []  // forget an ID once its notOnOrAfter has passed
        let firstUse = seenAssertionIDs.insert(assertion.assertionID).inserted  // true
        let replayed = !seenAssertionIDs.insert(assertion.assertionID).inserted  // true: refuse this response

        #expect(firstUse)
        #expect(replayed)
    }

    @Test("rejectsContentTampering, as the article shows it: the first failure names the rule")
    func tampering() throws {
        let verifier = try SAMLResponseVerifier(configuration: Self.configuration())
        let signed = try Self.signedResponse()

        let tampered = String(decoding: signed, as: UTF8.self)
            .replacingOccurrences(of: "user-1@mvpd.example", with: "admin@mvpd.example")
        let rule: SAMLPolicyFailure.Rule?
        do {
            _ = try verifier.verify(Array(tampered.utf8))
            rule = nil
        } catch {
            rule = error.failures.first?.rule  // .signatureDigest: the NameID changed after signing
        }

        #expect(rule == .signatureDigest)
        #expect(rule?.code == "signature.digest")
    }

    @Test("semantic failures are all listed: an hour later, both validity windows have closed")
    func expired() throws {
        let configuration = try Self.configuration()
        let samlResponse = try Self.signedResponse()

        var anHourLater = configuration
        anHourLater.clock = { Date().addingTimeInterval(3600) }
        let lateVerifier = try SAMLResponseVerifier(configuration: anHourLater)
        let failures: [SAMLPolicyFailure]
        do {
            _ = try lateVerifier.verify(samlResponse)
            failures = []
        } catch {
            failures = error.failures  // assertion.subjectConfirmation, then assertion.notOnOrAfter
        }

        #expect(failures.map(\.rule) == [.assertionSubjectConfirmation, .assertionNotOnOrAfter])
    }

    @Test("rejectsUnsolicitedByDefault, as the article shows it: IdP-initiated responses need the opt-in")
    func unsolicited() throws {
        let configuration = try Self.configuration()
        let samlResponse = try Self.signedResponse()

        var unsolicited = configuration
        unsolicited.requestID = nil
        let refused = (try? SAMLResponseVerifier(configuration: unsolicited)) == nil  // true: invalidConfiguration
        unsolicited.allowsIdPInitiated = true
        let idpInitiated = try SAMLResponseVerifier(configuration: unsolicited)

        #expect(refused)
        #expect(try idpInitiated.verify(samlResponse).nameID == "user-1@mvpd.example")
        var withoutRequest = configuration
        withoutRequest.requestID = nil
        let error = #expect(throws: SAMLError.self) { try SAMLResponseVerifier(configuration: withoutRequest) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("a rotated key: both certificates pinned, either signature verifies")
    func rotation() throws {
        let currentCertificate = Self.idpCertificate
        let nextKey = Fixtures.otherKey
        let builder = SAMLResponseBuilder(
            issuer: "https://idp.mvpd.example/saml", destination: "https://sp.tvekit.example/saml/acs",
            audience: "https://sp.tvekit.example/saml", inResponseTo: "_req-0001", nameID: "user-2@mvpd.example")
        let signedWithNext = try SAMLSigner(privateKey: nextKey).sign(Array(builder.xml().utf8))

        var configuration = try Self.configuration()
        configuration.idpKeys = [try RSAPublicKey(certificate: currentCertificate), nextKey.publicKey]
        let verifier = try SAMLResponseVerifier(configuration: configuration)

        #expect(try verifier.verify(signedWithNext).nameID == "user-2@mvpd.example")
        #expect(try verifier.verify(Self.signedResponse()).nameID == "user-1@mvpd.example")
        #expect(throws: SAMLError.self) { try SAMLResponseVerifier(configuration: Self.configuration()).verify(signedWithNext) }
    }
}
