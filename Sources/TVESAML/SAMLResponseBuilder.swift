import Foundation
import TVECrypto

/// Builds an unsigned SAML 2.0 Web SSO Response (one bearer Assertion), for the local identity provider, the
/// benchmarks and the tests; sign it with ``SAMLSigner``. Every value is XML-escaped.
public struct SAMLResponseBuilder: Sendable {
    /// The Response `ID`; a fresh `_`-prefixed UUID by default.
    public var responseID: String
    /// The Assertion `ID`; a fresh `_`-prefixed UUID by default.
    public var assertionID: String
    /// The IdP entity ID, written as the `Issuer` of both the Response and the Assertion.
    public var issuer: String
    /// The SP's assertion consumer service URL: the Response `Destination` and the bearer confirmation `Recipient`.
    public var destination: String
    /// The SP entity ID, written as the one `Audience` of the `AudienceRestriction`.
    public var audience: String
    /// The ID of the AuthnRequest answered, written as `InResponseTo` on the Response and on the bearer confirmation;
    /// `nil` for an unsolicited (IdP-initiated) response.
    public var inResponseTo: String?
    /// The subject's `NameID` value.
    public var nameID: String
    /// The `NameID` `Format`; `urn:oasis:names:tc:SAML:2.0:nameid-format:persistent` by default.
    public var nameIDFormat: String = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
    /// The `AuthnStatement` `SessionIndex`; a fresh `_`-prefixed UUID by default.
    public var sessionIndex: String
    /// The issue instant; the assertion is valid from it for `lifetime`.
    public var issueInstant: Date
    /// How long the assertion is valid after ``issueInstant``: it sets the Conditions and bearer confirmation
    /// `NotOnOrAfter`. Counted in whole seconds (a fraction is dropped); 300 s by default.
    public var lifetime: Duration
    /// Attributes in order.
    public var attributes: [SSOAttribute]

    /// Creates a builder. The IDs and the session index default to fresh random values, the issue instant to now
    /// (also written as the `AuthnInstant`), the lifetime to 300 s, and the attributes to none.
    public init(
        responseID: String = "_" + UUID().uuidString, assertionID: String = "_" + UUID().uuidString, issuer: String,
        destination: String, audience: String, inResponseTo: String?, nameID: String,
        sessionIndex: String = "_" + UUID().uuidString, issueInstant: Date = Date(), lifetime: Duration = .seconds(300),
        attributes: [SSOAttribute] = []
    ) {
        self.responseID = responseID
        self.assertionID = assertionID
        self.issuer = issuer
        self.destination = destination
        self.audience = audience
        self.inResponseTo = inResponseTo
        self.nameID = nameID
        self.sessionIndex = sessionIndex
        self.issueInstant = issueInstant
        self.lifetime = lifetime
        self.attributes = attributes
    }

    /// The Response as XML text.
    public func xml() -> String {
        let start = Self.dateTime(issueInstant)
        let end = Self.dateTime(issueInstant.addingTimeInterval(Double(lifetime.components.seconds)))
        let irt = inResponseTo.map { " InResponseTo=\"\(Self.escape($0))\"" } ?? ""
        var xml =
            "<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\""
        xml +=
            " ID=\"\(Self.escape(responseID))\" Version=\"2.0\" IssueInstant=\"\(start)\" Destination=\"\(Self.escape(destination))\"\(irt)>"
        xml += "<saml:Issuer>\(Self.escape(issuer))</saml:Issuer>"
        xml += "<samlp:Status><samlp:StatusCode Value=\"urn:oasis:names:tc:SAML:2.0:status:Success\"/></samlp:Status>"
        xml += "<saml:Assertion ID=\"\(Self.escape(assertionID))\" Version=\"2.0\" IssueInstant=\"\(start)\">"
        xml += "<saml:Issuer>\(Self.escape(issuer))</saml:Issuer>"
        xml += "<saml:Subject><saml:NameID Format=\"\(Self.escape(nameIDFormat))\">\(Self.escape(nameID))</saml:NameID>"
        xml += "<saml:SubjectConfirmation Method=\"urn:oasis:names:tc:SAML:2.0:cm:bearer\">"
        xml += "<saml:SubjectConfirmationData Recipient=\"\(Self.escape(destination))\" NotOnOrAfter=\"\(end)\"\(irt)/>"
        xml += "</saml:SubjectConfirmation></saml:Subject>"
        xml += "<saml:Conditions NotBefore=\"\(start)\" NotOnOrAfter=\"\(end)\"><saml:AudienceRestriction>"
        xml += "<saml:Audience>\(Self.escape(audience))</saml:Audience></saml:AudienceRestriction></saml:Conditions>"
        xml += "<saml:AuthnStatement AuthnInstant=\"\(start)\" SessionIndex=\"\(Self.escape(sessionIndex))\"><saml:AuthnContext>"
        xml += "<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>"
        xml += "</saml:AuthnContext></saml:AuthnStatement>"
        if !attributes.isEmpty {
            xml += "<saml:AttributeStatement>"
            for attribute in attributes {
                xml += "<saml:Attribute Name=\"\(Self.escape(attribute.name))\">"
                for value in attribute.values { xml += "<saml:AttributeValue>\(Self.escape(value))</saml:AttributeValue>" }
                xml += "</saml:Attribute>"
            }
            xml += "</saml:AttributeStatement>"
        }
        xml += "</saml:Assertion></samlp:Response>"
        return xml
    }

    /// Escapes for text and attribute values alike. Tab, line feed and carriage return become character references
    /// (so attribute values keep them); other control characters, which XML 1.0 cannot carry at all, become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case _ where character.value < 0x20 || (0xFFFE...0xFFFF).contains(character.value):
                out.unicodeScalars.append("\u{FFFD}")
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// xs:dateTime in UTC with whole seconds.
    static func dateTime(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilTime.civilFromDays(Int(days))
        func two(_ value: some BinaryInteger) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
    }
}
