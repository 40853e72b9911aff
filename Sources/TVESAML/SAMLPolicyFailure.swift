import Foundation

/// One rule a SAML response broke, in the style of swift-certificates' policy failures and in the package's one error
/// shape: its ``rule`` is its stable ``code`` (two failures are equal when their rules are), with a ``reason`` and the
/// ``file`` and ``line`` where the failure was found.
public struct SAMLPolicyFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable rule code such as `structure.assertionCount` or `assertion.audience`.
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// The rule's stable code, for example `assertion.audience`; also its `description`.
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
        /// The Response `Status` is missing or its `StatusCode` is not `Success`.
        public static let responseStatus = Rule("response.status")
        /// The Response `Destination` is missing or is not ``SAMLVerifierConfiguration/acsURL``.
        public static let responseDestination = Rule("response.destination")
        /// The Response `InResponseTo` is not ``SAMLVerifierConfiguration/requestID`` (checked only when one is set).
        public static let responseInResponseTo = Rule("response.inResponseTo")
        /// The Response has more than one `Issuer`, or its `Issuer` is not ``SAMLVerifierConfiguration/idpEntityID``
        /// (the Response `Issuer` itself is optional).
        public static let responseIssuer = Rule("response.issuer")
        /// The Assertion does not have exactly one `Issuer`, or it is not ``SAMLVerifierConfiguration/idpEntityID``.
        public static let assertionIssuer = Rule("assertion.issuer")
        /// The Assertion has no single `Subject` holding exactly one non-empty, text-only `NameID`.
        public static let assertionNameID = Rule("assertion.nameID")
        /// No bearer `SubjectConfirmation` is valid now: none has `SubjectConfirmationData` whose `Recipient` is the ACS
        /// URL, whose `NotOnOrAfter` is present and not yet passed, whose `NotBefore` (if any) is reached, and whose
        /// `InResponseTo` is the request ID (when one is set), allowing for the clock skew.
        public static let assertionSubjectConfirmation = Rule("assertion.subjectConfirmation")
        /// The Conditions `NotBefore` is still in the future (beyond the clock skew) or is not a UTC `xs:dateTime`.
        public static let assertionNotBefore = Rule("assertion.notBefore")
        /// The Conditions `NotOnOrAfter` has passed (beyond the clock skew) or is not a UTC `xs:dateTime`.
        public static let assertionNotOnOrAfter = Rule("assertion.notOnOrAfter")
        /// The Assertion has no single `Conditions` element, or it has no `AudienceRestriction`, or one of its
        /// `AudienceRestriction`s does not name ``SAMLVerifierConfiguration/spEntityID`` as an `Audience`.
        public static let assertionAudience = Rule("assertion.audience")
        /// The Assertion has no `AuthnStatement`.
        public static let assertionAuthnStatement = Rule("assertion.authnStatement")
        // Not about a response
        /// The verifier or signer configuration (``SAMLError/Code/invalidConfiguration``).
        public static let configuration = Rule("configuration")
        /// Signing (``SAMLError/Code/signingFailed``).
        public static let signing = Rule("signing")
    }

    /// The rule that was broken.
    public var rule: Rule { backing.rule }
    /// The stable code of this failure: its ``rule``; two failures are equal when their rules are.
    public var code: Rule { backing.rule }
    /// What was wrong; never a key, never the whole response.
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the failure was found in, for diagnosis.
    public var file: String { backing.file }
    /// The line the failure was found on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// Creates a failure of `rule`, with `reason` saying what was wrong (never put a key or the whole response in it),
    /// found at `file`:`line` (the caller's by default).
    public init(_ rule: Rule, _ reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(rule: rule, reason: reason, file: file, line: line)
    }

    /// `rule: reason`: what a user reads of the failure.
    public var summary: String { "\(rule): \(reason)" }

    /// `rule: reason (file:line)`: for logs and diagnosis. Show users ``summary``.
    public var description: String { "\(summary) (\(file):\(line))" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rule == rhs.rule }
    public func hash(into hasher: inout Hasher) { hasher.combine(rule) }

    /// The failure's storage: one reference, so that the failure stays one word wide.
    private final class Backing: Sendable {
        let rule: Rule
        let reason: String
        let file: String
        let line: UInt

        init(rule: Rule, reason: String, file: String, line: UInt) {
            self.rule = rule
            self.reason = reason
            self.file = file
            self.line = line
        }
    }
}
