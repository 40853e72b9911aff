import Foundation

/// The one error type of ``TVETokens``, equal only on its ``code``.
///
/// Messages say what was wrong and where (a byte offset, an element name), never a key or a whole token.
public struct MediaTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable {
            case malformedToken, inputTooLarge, invalidConfiguration, invalidField, signingFailed
        }
        fileprivate let backing: Backing

        /// The token does not follow the strict grammar (formats.md §1).
        public static let malformedToken = Code(backing: .malformedToken)
        /// The token or one of its fields is larger than the documented limits.
        public static let inputTooLarge = Code(backing: .inputTooLarge)
        /// A verifier or issuer was configured with something unusable (no trusted key, empty requestor, ...).
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// A field given to the issuer cannot be put in a token (empty, too long, negative TTL, ...).
        public static let invalidField = Code(backing: .invalidField)
        /// Signing the token failed.
        public static let signingFailed = Code(backing: .signingFailed)

        public var description: String { backing.rawValue }

        /// The stable number of the code.
        public var number: Int {
            switch backing {
            case .malformedToken: 2001
            case .inputTooLarge: 2002
            case .invalidConfiguration: 2010
            case .invalidField: 2011
            case .signingFailed: 2020
            }
        }
    }

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

    @inline(never) public static func malformedToken(reason: String = "") -> Self { Self(code: .malformedToken, reason: reason) }
    @inline(never) public static func inputTooLarge(reason: String = "") -> Self { Self(code: .inputTooLarge, reason: reason) }
    @inline(never) public static func invalidConfiguration(reason: String = "") -> Self { Self(code: .invalidConfiguration, reason: reason) }
    @inline(never) public static func invalidField(reason: String = "") -> Self { Self(code: .invalidField, reason: reason) }
    @inline(never) public static func signingFailed(reason: String = "") -> Self { Self(code: .signingFailed, reason: reason) }
}
