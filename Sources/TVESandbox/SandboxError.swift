/// An error of the sandbox: a stable ``code`` and a ``reason`` that says what went wrong and where, never a secret.
/// Equal on the code.
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

    /// The stable code of this error.
    public let code: Code
    /// What went wrong and where; never a secret.
    public let reason: String

    /// An error with a stable code and a reason (which must not hold a secret).
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    public static func == (lhs: SandboxError, rhs: SandboxError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
