/// The one error type of `TVEBenchmarkSupport` (the speed engine and the OpenSSL baselines), in the package's one
/// error shape (swift-certificates' `CertificateError`): equal only on its ``code``.
///
/// As with the library's errors (`TVECryptoError`, `MediaTokenError`, ...), callers and tests match on the code, the
/// ``reason`` says what went wrong and where, and ``file`` and ``line`` where the error was made.
package struct SpeedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code. Its ``description`` (for example `openSSLSpeed`) and ``number`` never change meaning.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable {
            case wrongResult, openSSLSpeed, setUp
        }
        fileprivate let backing: Backing

        /// An operation or its baseline gave a wrong answer while being measured.
        package static let wrongResult = Code(backing: .wrongResult)
        /// `openssl speed` could not be run or read.
        package static let openSSLSpeed = Code(backing: .openSSLSpeed)
        /// The measurement material (keys, tokens, documents, a baseline's OpenSSL contexts) could not be made.
        package static let setUp = Code(backing: .setUp)

        /// The stable name of the code.
        package var description: String { backing.rawValue }

        /// The stable number of the code (9001 ...; 9xxx: not a product).
        package var number: Int {
            switch backing {
            case .wrongResult: 9001
            case .openSSLSpeed: 9002
            case .setUp: 9003
            }
        }
    }

    /// The stable code of this error; two errors are equal when their codes are.
    package var code: Code { backing.code }
    /// What went wrong and where.
    package var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    package var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    package var line: UInt { backing.line }

    private let backing: Backing

    private init(code: Code, reason: String, file: String, line: UInt) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `SpeedError.code: reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    package var description: String { "SpeedError.\(code): \(reason) (\(file):\(line))" }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

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

    // MARK: Factories (one per code; `file` and `line`, the caller's by default, say where the error was made)

    @inline(never) package static func wrongResult(reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .wrongResult, reason: reason, file: file, line: line)
    }
    @inline(never) package static func openSSLSpeed(reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .openSSLSpeed, reason: reason, file: file, line: line)
    }
    @inline(never) package static func setUp(reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .setUp, reason: reason, file: file, line: line)
    }
}
