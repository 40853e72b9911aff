import Foundation
import TVECrypto
import TVETestSupport
@testable import TVESAML

enum SAMLFixtures {
    static func text(_ relativePath: String) -> String {
        Fixtures.load(relativePath) { $0 }
    }

    /// The committed fixture key and certificate (throw-away test material).
    static let key = Fixtures.leafKey
    static let certificate: X509Certificate? = Fixtures.leafCertificate
    static let attackerKey = Fixtures.otherKey

    static let idp = "https://idp.mvpd.example/saml"
    static let sp = "https://sp.tvekit.example/saml"
    static let acs = "https://sp.tvekit.example/saml/acs"
    static let now = Date(timeIntervalSince1970: 1_767_225_900)  // 2026-01-01T00:05:00Z

    static func assertion(
        id: String = "_a1", nameID: String = "user-1@mvpd.example", issuer: String = idp,
        notBefore: String = "2026-01-01T00:00:00Z", notOnOrAfter: String = "2026-01-01T00:10:00Z",
        audience: String = sp, recipient: String = acs,
        attributes: [(String, [String])] = [("MaxTVRating", ["TV-14"]), ("zip", ["12345", "34567"])],
        authn: Bool = true, extra: String = ""
    ) -> String {
        let attributeXML = attributes.map { name, values in
            "<saml:Attribute Name=\"\(name)\">" + values.map { "<saml:AttributeValue>\($0)</saml:AttributeValue>" }.joined()
                + "</saml:Attribute>"
        }.joined()
        return """
            <saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(id)" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">\
            <saml:Issuer>\(issuer)</saml:Issuer>\
            <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">\(nameID)</saml:NameID>\
            <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
            <saml:SubjectConfirmationData Recipient="\(recipient)" NotOnOrAfter="\(notOnOrAfter)" InResponseTo="_req-0001"/>\
            </saml:SubjectConfirmation></saml:Subject>\
            <saml:Conditions NotBefore="\(notBefore)" NotOnOrAfter="\(notOnOrAfter)"><saml:AudienceRestriction>\
            <saml:Audience>\(audience)</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
            \(authn ? "<saml:AuthnStatement AuthnInstant=\"2026-01-01T00:00:00Z\" SessionIndex=\"_s1\"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>" : "")\
            <saml:AttributeStatement>\(attributeXML)</saml:AttributeStatement>\(extra)</saml:Assertion>
            """
    }

    static func response(
        id: String = "_r1", assertion: String = assertion(), destination: String = acs, issuer: String = idp,
        status: String = "urn:oasis:names:tc:SAML:2.0:status:Success", extra: String = ""
    ) -> String {
        """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="\(destination)" InResponseTo="_req-0001">\
        <saml:Issuer>\(issuer)</saml:Issuer><samlp:Status><samlp:StatusCode Value="\(status)"/></samlp:Status>\(extra)\(assertion)</samlp:Response>
        """
    }

    static func signed(_ xml: String, _ targets: SAMLSigner.Targets = .root, key: RSAPrivateKey = key) throws -> String {
        String(decoding: try SAMLSigner(privateKey: key, certificate: certificate).sign(Array(xml.utf8), targets: targets), as: UTF8.self)
    }

    static func verifier(requestID: String? = "_req-0001", skew: Duration = .seconds(180), now: Date = now) throws -> SAMLResponseVerifier {
        try SAMLResponseVerifier(
            configuration: try SAMLVerifierConfiguration(
                idpCertificates: [certificate].compactMap { $0 }, idpEntityID: idp, spEntityID: sp, acsURL: acs, requestID: requestID,
                allowsIdPInitiated: requestID == nil,
                clockSkew: skew, clock: { now }))
    }

    /// The first failed rule, or nil when the response is accepted.
    static func rule(_ xml: String, verifier: SAMLResponseVerifier? = nil) -> String? {
        do {
            _ = try (verifier ?? (try? Self.verifier()))?.verify(Array(xml.utf8))
            return nil
        } catch {
            return error.failures.first?.rule.code
        }
    }
}
