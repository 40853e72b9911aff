/// An error of the PostgreSQL replay store's configuration: a stable ``code`` and a ``reason`` that names what was
/// wrong, never the password. Equal on the code. (A store that cannot answer a verification does not throw: the
/// verification fails closed with `REPLAY_CHECK_FAILED`.)
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
        /// The database did not answer (down, slow, refused the statement).
        public static let unavailable = Code(rawValue: "unavailable")
    }

    /// The stable code of this error.
    public let code: Code
    /// What was wrong; never the password.
    public let reason: String

    /// An error with a stable code and a reason (which must not hold the password).
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    public static func == (lhs: ReplayStoreError, rhs: ReplayStoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
