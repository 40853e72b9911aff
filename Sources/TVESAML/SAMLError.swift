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

/// The one error type of ``TVESAML``, equal only on its ``code``.
public struct SAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable { case rejected, invalidConfiguration, signingFailed }
        fileprivate let backing: Backing
        /// The response broke at least one rule; see ``SAMLError/failures``.
        public static let rejected = Code(backing: .rejected)
        /// The verifier or signer was configured with something unusable.
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// Signing failed (the input is not a signable Response or Assertion, or the key failed).
        public static let signingFailed = Code(backing: .signingFailed)
        public var description: String { backing.rawValue }
        /// The stable number of the code.
        public var number: Int {
            switch backing {
            case .rejected: 4001
            case .invalidConfiguration: 4010
            case .signingFailed: 4020
            }
        }
    }

    public let code: Code
    /// Every rule that failed, the first being the one that stopped verification.
    public let failures: [SAMLPolicyFailure]
    /// A summary: the first failure.
    public var reason: String { failures.first?.description ?? code.description }

    init(code: Code, failures: [SAMLPolicyFailure]) {
        self.code = code
        self.failures = failures
    }

    static func rejected(_ failures: [SAMLPolicyFailure]) -> SAMLError { SAMLError(code: .rejected, failures: failures) }
    static func invalidConfiguration(_ reason: String) -> SAMLError {
        SAMLError(code: .invalidConfiguration, failures: [SAMLPolicyFailure(.configuration, reason)])
    }
    static func signingFailed(_ reason: String) -> SAMLError {
        SAMLError(code: .signingFailed, failures: [SAMLPolicyFailure(.signing, reason)])
    }

    public var description: String { "SAMLError.\(code): " + failures.map(\.description).joined(separator: "; ") }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
