/// The verification server's one error type, in the package's one error shape (swift-certificates'
/// `CertificateError`): a stable ``code``, a ``reason`` (never the secret) and the ``file`` and ``line`` it was made
/// on; equal on the code.
public struct VerificationServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// A bearer secret that cannot be used.
        public static let invalidSecret = Code(rawValue: "invalidSecret")
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// What was wrong; never the secret.
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// An error with a stable code and a reason (which must not hold the secret), made at `file`:`line` (the caller's by default).
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `VerificationServerError.code: reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String { "VerificationServerError.\(code): \(reason) (\(file):\(line))" }

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
}
