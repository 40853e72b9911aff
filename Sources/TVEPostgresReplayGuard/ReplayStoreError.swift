/// An error of the PostgreSQL replay store (its configuration, and the calls that maintain its table), in the
/// package's one error shape (swift-certificates' `CertificateError`): a stable ``code``, a ``reason`` that names what
/// was wrong (never the password), and the ``file`` and ``line`` it was made on. Equal on the code. (A store that
/// cannot answer a verification does not throw: the verification fails closed with `REPLAY_CHECK_FAILED`.)
public struct ReplayStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The URL is not `postgres://user@host[:port]/database`.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// The URL carries a password: it belongs in an environment variable or a file, never in arguments or logs.
        public static let passwordInURL = Code(rawValue: "passwordInURL")
        /// The table name is not a plain SQL identifier.
        public static let invalidTableName = Code(rawValue: "invalidTableName")
        /// A limit (timeout, pool size, batch) is out of range.
        public static let invalidLimit = Code(rawValue: "invalidLimit")
        /// The database did not answer (down, slow: not within the deadline, refused the statement).
        public static let unavailable = Code(rawValue: "unavailable")
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// What was wrong; never the password.
    public var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    /// An error with a stable code and a reason (which must not hold the password), made at `file`:`line` (the caller's by default).
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `ReplayStoreError.code: reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String { "ReplayStoreError.\(code): \(reason) (\(file):\(line))" }

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
