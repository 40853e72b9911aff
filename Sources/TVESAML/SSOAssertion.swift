import Foundation

/// What a verified SAML response asserts, read only from the verified Assertion.
public struct SSOAssertion: Hashable, Sendable {
    /// The subject's `NameID` text, entities decoded.
    public let nameID: String
    /// The NameID `Format`, when given.
    public let nameIDFormat: String?
    /// The attributes in document order; names may repeat only if the IdP repeated them.
    public let attributes: [SSOAttribute]
    /// The Assertion's Issuer (the IdP entity ID).
    public let issuer: String
    /// The AuthnStatement `SessionIndex`, when given.
    public let sessionIndex: String?
    /// The AuthnStatement `SessionNotOnOrAfter`, when given: when the IdP wants the SP session to end. Not checked
    /// here (it bounds the session the SP creates, not the response).
    public let sessionNotOnOrAfter: Date?
    /// The AuthnStatement `AuthnInstant`, when given as a UTC `xs:dateTime`: when the user authenticated.
    public let authnInstant: Date?
    /// The Conditions window, as given.
    public let notBefore: Date?
    /// The end of the Conditions window (exclusive), when given.
    public let notOnOrAfter: Date?
    /// `NotOnOrAfter` as written in the XML.
    public let notOnOrAfterText: String?
    /// The Assertion `ID` (empty when it has none): the key of the caller's replay cache.
    public let assertionID: String
    /// Which elements carried a verified signature.
    public let signedResponse: Bool
    /// Whether the Assertion carried its own verified signature.
    public let signedAssertion: Bool

    /// The values of the first attribute named `name`, merged with any repeats.
    public subscript(attribute name: String) -> [String]? {
        let matching = attributes.filter { $0.name == name }
        return matching.isEmpty ? nil : matching.flatMap(\.values)
    }
}
