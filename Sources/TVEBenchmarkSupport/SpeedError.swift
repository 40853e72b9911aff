/// The one error type of `TVEBenchmarkSupport` (the speed engine and the OpenSSL baselines), equal only on its
/// ``code``.
///
/// As with the library's errors (`TVECryptoError`, `MediaTokenError`, ...), callers and tests match on the code and
/// the ``reason`` says what went wrong and where.
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

    /// The stable code of this error.
    package let code: Code
    /// What went wrong and where.
    package let reason: String

    private init(code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "SpeedError.\(code): \(reason)" }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // MARK: Factories (one per code)

    @inline(never) package static func wrongResult(reason: String) -> Self { Self(code: .wrongResult, reason: reason) }
    @inline(never) package static func openSSLSpeed(reason: String) -> Self { Self(code: .openSSLSpeed, reason: reason) }
    @inline(never) package static func setUp(reason: String) -> Self { Self(code: .setUp, reason: reason) }
}
