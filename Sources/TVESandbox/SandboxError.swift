/// An error of the sandbox, in the package's one error shape (swift-certificates' `CertificateError`): a stable
/// ``code``, a ``reason`` that says what went wrong and where (never a secret), and the ``file`` and ``line`` it was
/// made on. Equal on the code.
public struct SandboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A scenario step did not give what the cookbook promises.
        public static let scenarioFailed = Code(rawValue: "scenarioFailed")
        /// The callback a scenario waited for did not come in time.
        public static let callbackMissing = Code(rawValue: "callbackMissing")
        /// The sandbox's browser did not end where the flow says it should.
        public static let navigationFailed = Code(rawValue: "navigationFailed")
        /// The app side's files could not be written.
        public static let appSideNotWritten = Code(rawValue: "appSideNotWritten")
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// What went wrong and where; never a secret.
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// An error with a stable code and a reason (which must not hold a secret), made at `file`:`line` (the caller's by default).
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `SandboxError.code: reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String { "SandboxError.\(code): \(reason) (\(file):\(line))" }

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
