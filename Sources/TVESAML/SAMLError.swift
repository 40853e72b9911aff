import Foundation

/// The one error type of ``TVESAML``, equal only on its ``code``.
public struct SAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable { case rejected, invalidConfiguration, signingFailed }
        fileprivate let backing: Backing
        /// The response broke at least one rule; see ``SAMLError/failures``.
        public static let rejected = Code(backing: .rejected)
        /// The verifier or signer was configured with something unusable.
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// Signing failed (the input is not a signable Response or Assertion, or the key failed).
        public static let signingFailed = Code(backing: .signingFailed)
        public var description: String { backing.rawValue }
        /// The stable number of the code.
        public var number: Int {
            switch backing {
            case .rejected: 4001
            case .invalidConfiguration: 4010
            case .signingFailed: 4020
            }
        }
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public let code: Code
    /// Every rule that failed, the first being the one that stopped verification.
    public let failures: [SAMLPolicyFailure]
    /// A summary: the first failure.
    public var reason: String { failures.first?.description ?? code.description }

    init(code: Code, failures: [SAMLPolicyFailure]) {
        self.code = code
        self.failures = failures
    }

    static func rejected(_ failures: [SAMLPolicyFailure]) -> SAMLError { SAMLError(code: .rejected, failures: failures) }
    static func invalidConfiguration(_ reason: String) -> SAMLError {
        SAMLError(code: .invalidConfiguration, failures: [SAMLPolicyFailure(.configuration, reason)])
    }
    static func signingFailed(_ reason: String) -> SAMLError {
        SAMLError(code: .signingFailed, failures: [SAMLPolicyFailure(.signing, reason)])
    }

    public var description: String { "SAMLError.\(code): " + failures.map(\.description).joined(separator: "; ") }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
