import Foundation

/// One rule a SAML response broke, in the style of swift-certificates' policy failures.
public struct SAMLPolicyFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable rule code such as `structure.assertionCount` or `assertion.audience`.
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        public let code: String
        fileprivate init(_ code: String) { self.code = code }
        public var description: String { code }

        // Input
        /// The input is larger than ``SAMLResponseVerifier/maximumInputBytes``.
        public static let inputSize = Rule("input.size")
        /// The input is not UTF-8, not XML text and not valid Base64.
        public static let inputEncoding = Rule("input.encoding")
        /// libxml2 could not parse the XML.
        public static let malformedXML = Rule("input.malformedXML")
        /// A DOCTYPE or entity declaration: refused outright (entity expansion, XXE, parser differentials).
        public static let doctype = Rule("input.doctype")
        // Structure
        /// The root is not `samlp:Response`.
        public static let root = Rule("structure.root")
        /// A comment or processing instruction inside the response (comment-truncation attacks).
        public static let commentOrPI = Rule("structure.commentOrPI")
        /// Two elements carry the same `ID`.
        public static let duplicateID = Rule("structure.duplicateID")
        /// Not exactly one `saml:Assertion` in the whole document, or an `EncryptedAssertion`.
        public static let assertionCount = Rule("structure.assertionCount")
        /// The Assertion is not a direct child of the Response.
        public static let assertionPosition = Rule("structure.assertionPosition")
        /// A `ds:Signature` that is not a direct child of the Response or the Assertion, or two on one element.
        public static let signaturePosition = Rule("structure.signaturePosition")
        // Signature
        /// No signature covers the Assertion.
        public static let signatureMissing = Rule("signature.missing")
        /// The signature breaks the SAML XML-DSig profile (references, URI, transforms, `ds:Object`, shape).
        public static let signatureProfile = Rule("signature.profile")
        /// An algorithm outside the allow-list (RSA-SHA256/384/512, SHA-256/384/512, exclusive C14N).
        public static let signatureAlgorithm = Rule("signature.algorithm")
        /// Canonicalization failed: the signature is rejected, never checked over partial output.
        public static let signatureCanonicalization = Rule("signature.canonicalization")
        /// No pinned IdP key verifies the SignatureValue.
        public static let signatureValue = Rule("signature.value")
        /// The referenced element's digest differs from the signed DigestValue.
        public static let signatureDigest = Rule("signature.digest")
        // SAML semantics
        public static let responseStatus = Rule("response.status")
        public static let responseDestination = Rule("response.destination")
        public static let responseInResponseTo = Rule("response.inResponseTo")
        public static let responseIssuer = Rule("response.issuer")
        public static let assertionIssuer = Rule("assertion.issuer")
        public static let assertionNameID = Rule("assertion.nameID")
        public static let assertionSubjectConfirmation = Rule("assertion.subjectConfirmation")
        public static let assertionNotBefore = Rule("assertion.notBefore")
        public static let assertionNotOnOrAfter = Rule("assertion.notOnOrAfter")
        public static let assertionAudience = Rule("assertion.audience")
        public static let assertionAuthnStatement = Rule("assertion.authnStatement")
        // Not about a response
        /// The verifier or signer configuration (``SAMLError/Code/invalidConfiguration``).
        public static let configuration = Rule("configuration")
        /// Signing (``SAMLError/Code/signingFailed``).
        public static let signing = Rule("signing")
    }

    public let rule: Rule
    /// What was wrong; never a key, never the whole response.
    public let reason: String

    public init(_ rule: Rule, _ reason: String) {
        self.rule = rule
        self.reason = reason
    }

    public var description: String { "\(rule): \(reason)" }
}
