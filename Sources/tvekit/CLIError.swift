import TVEAccessEnabler
import TVEBenchmarkSupport
import TVECrypto
import TVEJSON
import TVEMetadata
import TVEPostgresReplayGuard
import TVESAML
import TVESandbox
import TVETokens
import TVEVerificationServer

/// A usage or input problem found by the CLI itself (exit status 2), in the package's one error shape
/// (swift-certificates' `CertificateError`): a stable ``code``, a ``reason`` that names the file, variable or option
/// at fault (never a secret), and the ``file`` and ``line`` it was made on. Equal on the code.
struct CLIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        var description: String { rawValue }

        /// A file or standard input could not be read, or is over its limit.
        static let unreadableInput = Code(rawValue: "unreadableInput")
        /// An output (a file or directory) could not be written.
        static let unwritableOutput = Code(rawValue: "unwritableOutput")
        /// The environment variable that should hold a secret is not set, or is empty.
        static let missingSecret = Code(rawValue: "missingSecret")
        /// A key or certificate file holds no usable key.
        static let unusableKey = Code(rawValue: "unusableKey")
        /// An input is not of the form the command reads (Base64, the configuration's JSON).
        static let invalidInput = Code(rawValue: "invalidInput")
        /// Options that do not go together, or a value out of range.
        static let invalidArgument = Code(rawValue: "invalidArgument")
    }

    /// The stable code; two errors are equal when their codes are.
    var code: Code { backing.code }
    /// What was wrong, naming the file, variable or option at fault; never a secret.
    var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    var line: UInt { backing.line }

    private let backing: Backing

    /// An error with a stable code and a reason, made at `file`:`line` (the caller's by default).
    init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `CLIError.code: reason (file:line)`: for diagnosis. The user reads ``userMessage(for:)``.
    var description: String { "CLIError.\(code): \(reason) (\(file):\(line))" }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    func hash(into hasher: inout Hasher) { hasher.combine(code) }

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

    /// What the user reads of one of the package's errors: `reason [code]` (a metadata error adds its key), never the
    /// file and line it was made on, which are for logs and debugging. `nil` for an error of another kind.
    static func userMessage(for error: any Error) -> String? {
        switch error {
        case let error as CLIError: "\(error.reason) [\(error.code)]"
        case let error as ClientApp.Failure: "\(error.reason) [\(error.code)]"
        case let error as TVECryptoError: "\(error.reason) [\(error.code)]"
        case let error as MediaTokenError: "\(error.reason) [\(error.code)]"
        case let error as SAMLError: "\(error.reason) [\(error.code)]"
        case let error as MetadataError: "\(error.reason)" + (error.key.map { " (key \($0.debugDescription))" } ?? "") + " [\(error.code)]"
        case let error as JSONParsingError: "\(error.reason) at byte \(error.offset) [\(error.code)]"
        case let error as SandboxError: "\(error.reason) [\(error.code)]"
        case let error as AccessEnablerError: "\(error.reason) [\(error.code)]"
        case let error as SpeedError: "\(error.reason) [\(error.code)]"
        case let error as ReplayStoreError: "\(error.reason) [\(error.code)]"
        case let error as VerificationServerError: "\(error.reason) [\(error.code)]"
        default: nil
        }
    }
}
