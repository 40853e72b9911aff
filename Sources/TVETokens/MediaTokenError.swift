import Foundation

/// The one error type of ``TVETokens`` (media tokens, signed requestor IDs, clientless signatures and software
/// statements), equal only on its ``code``.
///
/// Messages say what was wrong and where (a byte offset, an element name), never a key or a whole token.
public struct MediaTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable {
            case malformedToken, inputTooLarge, malformedResource, invalidConfiguration, invalidField, signingFailed, malformedSignature,
                malformedHeader, malformedStatement, unsupportedAlgorithm, invalidSignature
        }
        fileprivate let backing: Backing

        /// The token does not follow the strict grammar (FORMATS.md §1).
        public static let malformedToken = Code(backing: .malformedToken)
        /// The token or one of its fields is larger than the documented limits.
        public static let inputTooLarge = Code(backing: .inputTooLarge)
        /// A resource written as MRSS does not follow the hardened subset of FORMATS.md §1 (``MRSSResource``).
        public static let malformedResource = Code(backing: .malformedResource)
        /// A verifier or issuer was configured with something unusable (no trusted key, empty requestor, ...).
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// A field given to the issuer cannot be put in a token (empty, too long, negative TTL, ...).
        public static let invalidField = Code(backing: .invalidField)
        /// Signing the token failed.
        public static let signingFailed = Code(backing: .signingFailed)

        /// A signature text (signed requestor ID) is not Base64, or the signed input is empty.
        public static let malformedSignature = Code(backing: .malformedSignature)
        /// A clientless `Authorization` header does not follow FORMATS.md §4.
        public static let malformedHeader = Code(backing: .malformedHeader)
        /// A software statement is not a well-formed JWT with the expected claims.
        public static let malformedStatement = Code(backing: .malformedStatement)
        /// A JWT names an algorithm other than RS256 (`none`, `HS256`, ...).
        public static let unsupportedAlgorithm = Code(backing: .unsupportedAlgorithm)
        /// A well-formed JWT whose signature does not verify under the given key.
        public static let invalidSignature = Code(backing: .invalidSignature)

        public var description: String { backing.rawValue }

        /// The stable number of the code.
        public var number: Int {
            switch backing {
            case .malformedToken: 2001
            case .inputTooLarge: 2002
            case .malformedResource: 2003
            case .invalidConfiguration: 2010
            case .invalidField: 2011
            case .signingFailed: 2020
            case .malformedSignature: 2030
            case .malformedHeader: 2040
            case .malformedStatement: 2050
            case .unsupportedAlgorithm: 2051
            case .invalidSignature: 2052
            }
        }
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public let code: Code
    /// What was wrong and where.
    public let reason: String

    private init(code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "MediaTokenError.\(code): \(reason)" }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Makes an error with the code ``MediaTokenError/Code/malformedToken``; `reason` says what was wrong and where.
    @inline(never) public static func malformedToken(reason: String = "") -> Self { Self(code: .malformedToken, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/inputTooLarge``; `reason` says what was wrong and where.
    @inline(never) public static func inputTooLarge(reason: String = "") -> Self { Self(code: .inputTooLarge, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/malformedResource``; `reason` says what was wrong and where.
    @inline(never) public static func malformedResource(reason: String = "") -> Self { Self(code: .malformedResource, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/invalidConfiguration``; `reason` says what was wrong and where.
    @inline(never) public static func invalidConfiguration(reason: String = "") -> Self {
        Self(code: .invalidConfiguration, reason: reason)
    }
    /// Makes an error with the code ``MediaTokenError/Code/invalidField``; `reason` says what was wrong and where.
    @inline(never) public static func invalidField(reason: String = "") -> Self { Self(code: .invalidField, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/signingFailed``; `reason` says what was wrong and where.
    @inline(never) public static func signingFailed(reason: String = "") -> Self { Self(code: .signingFailed, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/malformedSignature``; `reason` says what was wrong and where.
    @inline(never) public static func malformedSignature(reason: String = "") -> Self { Self(code: .malformedSignature, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/malformedHeader``; `reason` says what was wrong and where.
    @inline(never) public static func malformedHeader(reason: String = "") -> Self { Self(code: .malformedHeader, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/malformedStatement``; `reason` says what was wrong and where.
    @inline(never) public static func malformedStatement(reason: String = "") -> Self { Self(code: .malformedStatement, reason: reason) }
    /// Makes an error with the code ``MediaTokenError/Code/unsupportedAlgorithm``; `reason` says what was wrong and where.
    @inline(never) public static func unsupportedAlgorithm(reason: String = "") -> Self {
        Self(code: .unsupportedAlgorithm, reason: reason)
    }
    /// Makes an error with the code ``MediaTokenError/Code/invalidSignature``; `reason` says what was wrong and where.
    @inline(never) public static func invalidSignature(reason: String = "") -> Self { Self(code: .invalidSignature, reason: reason) }
}
