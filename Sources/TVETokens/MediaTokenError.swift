import Foundation

/// The one error type of ``TVETokens`` (media tokens, signed requestor IDs, clientless signatures and software
/// statements), in the package's one error shape (swift-certificates' `CertificateError`): equal only on its
/// ``code``; it also records a ``reason`` and the ``file`` and ``line`` it was made on.
///
/// Reasons say what was wrong and where (a byte offset, an element name), never a key or a whole token.
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
    public var code: Code { backing.code }
    /// What was wrong and where.
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    private init(code: Code, reason: String, file: String, line: UInt) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `MediaTokenError.code: reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String { "MediaTokenError.\(code): \(reason) (\(file):\(line))" }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide.
    private final class Backing: Sendable {
        let code: Code
        let reason: String
        let file: String
        let line: UInt

        init(code: Code, reason: String, file: String, line: UInt) {
            self.code = code
            self.reason = reason
            self.file = file
            self.line = line
        }
    }

    /// Makes an error with the code ``MediaTokenError/Code/malformedToken``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func malformedToken(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedToken, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/inputTooLarge``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func inputTooLarge(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .inputTooLarge, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/malformedResource``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func malformedResource(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedResource, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/invalidConfiguration``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func invalidConfiguration(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/invalidField``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func invalidField(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidField, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/signingFailed``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func signingFailed(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .signingFailed, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/malformedSignature``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func malformedSignature(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedSignature, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/malformedHeader``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func malformedHeader(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedHeader, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/malformedStatement``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func malformedStatement(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedStatement, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/unsupportedAlgorithm``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func unsupportedAlgorithm(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .unsupportedAlgorithm, reason: reason, file: file, line: line)
    }
    /// Makes an error with the code ``MediaTokenError/Code/invalidSignature``; `reason` says what was wrong and where;
    /// `file` and `line` (the caller's by default) say where the error was made.
    @inline(never) public static func invalidSignature(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidSignature, reason: reason, file: file, line: line)
    }
}
