import Foundation

/// The one error type of ``TVESAML``, in the package's one error shape (swift-certificates' `CertificateError`):
/// equal only on its ``code``; it also records its ``failures`` (whose first is its ``reason``) and the ``file`` and
/// ``line`` it was made on.
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
    public var code: Code { backing.code }
    /// Every rule that failed, the first being the one that stopped verification.
    public var failures: [SAMLPolicyFailure] { backing.failures }
    /// A summary: the first failure, as `rule: reason`.
    public var reason: String { failures.first.map(\.summary) ?? code.description }
    /// The file (`#fileID`) the error was made in, for diagnosis (each failure records its own).
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    public var line: UInt { backing.line }

    private let backing: Backing

    init(code: Code, failures: [SAMLPolicyFailure], file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, failures: failures, file: file, line: line)
    }

    static func rejected(_ failures: [SAMLPolicyFailure], file: String = #fileID, line: UInt = #line) -> SAMLError {
        SAMLError(code: .rejected, failures: failures, file: file, line: line)
    }
    static func invalidConfiguration(_ reason: String, file: String = #fileID, line: UInt = #line) -> SAMLError {
        SAMLError(
            code: .invalidConfiguration, failures: [SAMLPolicyFailure(.configuration, reason, file: file, line: line)], file: file,
            line: line)
    }
    static func signingFailed(_ reason: String, file: String = #fileID, line: UInt = #line) -> SAMLError {
        SAMLError(code: .signingFailed, failures: [SAMLPolicyFailure(.signing, reason, file: file, line: line)], file: file, line: line)
    }

    /// `SAMLError.code: rule: reason; … (file:line)`: for logs and diagnosis. Show users ``reason`` or the failures'
    /// ``SAMLPolicyFailure/summary``.
    public var description: String {
        "SAMLError.\(code): " + failures.map(\.summary).joined(separator: "; ") + " (\(file):\(line))"
    }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide.
    private final class Backing: Sendable {
        let code: Code
        let failures: [SAMLPolicyFailure]
        let file: String
        let line: UInt

        init(code: Code, failures: [SAMLPolicyFailure], file: String, line: UInt) {
            self.code = code
            self.failures = failures
            self.file = file
            self.line = line
        }
    }
}
