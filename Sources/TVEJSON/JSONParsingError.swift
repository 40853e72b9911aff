/// Why a JSON text was refused, and where, in the package's one error shape (swift-certificates' `CertificateError`):
/// a stable ``code``, the byte ``offset`` and a ``reason``, with the ``file`` and ``line`` the error was made on.
/// Equal on the code.
public struct JSONParsingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A byte where the grammar allows none of its kind (a missing `:`, `,` or value, an invalid literal).
        public static let syntax = Code(rawValue: "syntax")
        /// Data after the JSON value.
        public static let trailingData = Code(rawValue: "trailingData")
        /// An object with the same key twice.
        public static let duplicateKey = Code(rawValue: "duplicateKey")
        /// Nesting deeper than the parser's limit (64 levels).
        public static let tooDeep = Code(rawValue: "tooDeep")
        /// A text over ``JSONValue/maximumBytes``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// Invalid UTF-8 in a string.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A string with a control character, a bad escape, a lone surrogate or no end.
        public static let invalidString = Code(rawValue: "invalidString")
        /// A number with a leading zero, no digits where some are needed, over 64 characters or out of range.
        public static let invalidNumber = Code(rawValue: "invalidNumber")
    }

    /// The stable code; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// The byte offset of the problem.
    public var offset: Int { backing.offset }
    /// What was wrong, in words (the parser's reasons never quote the text).
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// An error with the given code, byte offset and reason, made at `file`:`line` (the caller's by default).
    public init(_ code: Code, offset: Int, reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, offset: offset, reason: reason, file: file, line: line)
    }

    /// `JSONParsingError.code: reason at byte N (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String { "JSONParsingError.\(code): \(reason) at byte \(offset) (\(file):\(line))" }

    public static func == (lhs: JSONParsingError, rhs: JSONParsingError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide.
    private final class Backing: Sendable {
        let code: Code
        let offset: Int
        let reason: String
        let file: String
        let line: UInt

        init(code: Code, offset: Int, reason: String, file: String, line: UInt) {
            self.code = code
            self.offset = offset
            self.reason = reason
            self.file = file
            self.line = line
        }
    }
}
