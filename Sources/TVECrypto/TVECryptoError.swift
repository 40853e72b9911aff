internal import COpenSSL

/// The one error type of ``TVECrypto``, in the package's one error shape (swift-certificates' `CertificateError`).
///
/// Errors are equal when their ``code`` is equal, so tests and callers match on the code:
/// `#expect(throws: TVECryptoError.wrongPassword()) { ... }`. The ``reason`` says what was wrong and where, never
/// the secret involved (no key material, password or plaintext ever reaches a message); ``file`` and ``line`` say
/// where the error was made, and end the ``description``.
///
/// When an OpenSSL call failed, the thread's OpenSSL error queue is drained into ``openSSLErrors``. The one
/// exception is ``Code/decryptionFailed``: RSA and AES-CBC decryption failures carry no detail at all, not even the
/// line they were made on, so the error cannot act as a padding oracle (RFC 8017 §7.2.2, Bleichenbacher 1998).
public struct TVECryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code. Its ``description`` (for example `wrongPassword`) and ``number`` never change
    /// meaning between releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable {
            case emptyInput, inputTooLarge, invalidBase64
            case malformedKey, malformedCertificate, malformedPKCS12
            case unsupportedKeyType, keyTooSmall, keyTooLarge
            case passphraseRequired, wrongPassword, keyCertificateMismatch
            case unsupportedAlgorithm, invalidParameter
            case signingFailed, encryptionFailed, decryptionFailed, authenticationFailed
            case randomFailure, openSSLFailure
        }
        fileprivate let backing: Backing

        /// The input was empty.
        public static let emptyInput = Code(backing: .emptyInput)
        /// The input is larger than the documented limit of the call.
        public static let inputTooLarge = Code(backing: .inputTooLarge)
        /// The text is not valid Base64 or Base64url under the chosen options.
        public static let invalidBase64 = Code(backing: .invalidBase64)
        /// The bytes are not a key in any accepted encoding.
        public static let malformedKey = Code(backing: .malformedKey)
        /// The bytes are not an X.509 certificate (or bundle) in PEM or DER.
        public static let malformedCertificate = Code(backing: .malformedCertificate)
        /// The bytes are not a PKCS#12 file, or the file lacks a private key or certificate.
        public static let malformedPKCS12 = Code(backing: .malformedPKCS12)
        /// The key is well formed but not an RSA key (EC, Ed25519, RSASSA-PSS-restricted, ...).
        public static let unsupportedKeyType = Code(backing: .unsupportedKeyType)
        /// The RSA modulus is shorter than 2048 bits and the caller did not opt in: `allowing1024BitKeys: true` on a
        /// public-key loader (1024 bits and up, to verify what a legacy signer signed), or an `unsafe` initialiser
        /// (512 bits and up). Keys under 1024 bits are refused by every loader but the `unsafe` ones.
        public static let keyTooSmall = Code(backing: .keyTooSmall)
        /// The RSA modulus is longer than 16384 bits.
        public static let keyTooLarge = Code(backing: .keyTooLarge)
        /// The key is encrypted and no passphrase was given.
        public static let passphraseRequired = Code(backing: .passphraseRequired)
        /// The passphrase or PKCS#12 password does not open the key or file.
        public static let wrongPassword = Code(backing: .wrongPassword)
        /// The private key does not belong to the certificate.
        public static let keyCertificateMismatch = Code(backing: .keyCertificateMismatch)
        /// The algorithm or parameter combination is refused by policy (for example SHA-1 RSA signatures).
        public static let unsupportedAlgorithm = Code(backing: .unsupportedAlgorithm)
        /// A parameter has the wrong size or value (AES key or IV length, message too long for the key, ...).
        public static let invalidParameter = Code(backing: .invalidParameter)
        /// Creating a signature failed.
        public static let signingFailed = Code(backing: .signingFailed)
        /// Encryption failed.
        public static let encryptionFailed = Code(backing: .encryptionFailed)
        /// Decryption failed. Every cause (bad padding, wrong key, wrong length) gives this one code and the
        /// same message, so the error cannot be used as a padding oracle.
        public static let decryptionFailed = Code(backing: .decryptionFailed)
        /// An authentication tag (AES-GCM) did not verify.
        public static let authenticationFailed = Code(backing: .authenticationFailed)
        /// The system random generator failed.
        public static let randomFailure = Code(backing: .randomFailure)
        /// An OpenSSL call failed for a reason not covered by a more specific code.
        public static let openSSLFailure = Code(backing: .openSSLFailure)

        /// The stable name of the code.
        public var description: String { backing.rawValue }

        /// The stable number of the code (1001 ... ), for logs and metrics.
        public var number: Int {
            switch backing {
            case .emptyInput: 1001
            case .inputTooLarge: 1002
            case .invalidBase64: 1003
            case .malformedKey: 1010
            case .malformedCertificate: 1011
            case .malformedPKCS12: 1012
            case .unsupportedKeyType: 1020
            case .keyTooSmall: 1021
            case .keyTooLarge: 1022
            case .passphraseRequired: 1030
            case .wrongPassword: 1031
            case .keyCertificateMismatch: 1032
            case .unsupportedAlgorithm: 1040
            case .invalidParameter: 1041
            case .signingFailed: 1050
            case .encryptionFailed: 1051
            case .decryptionFailed: 1052
            case .authenticationFailed: 1053
            case .randomFailure: 1060
            case .openSSLFailure: 1099
            }
        }
    }

    /// One entry of OpenSSL's error queue, as drained when the error was made.
    public struct OpenSSLErrorEntry: Hashable, Sendable, CustomStringConvertible {
        /// OpenSSL's packed error code.
        public let code: UInt
        /// OpenSSL's text for the code (`error:0308010C:digital envelope routines::unsupported`).
        public let message: String
        public var description: String { message }
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// What was wrong and where; never a secret.
    public var reason: String { backing.reason }
    /// The drained OpenSSL error queue, oldest first (empty for decryption failures and non-OpenSSL errors).
    public var openSSLErrors: [OpenSSLErrorEntry] { backing.openSSLErrors }
    /// The file (`#fileID`) the error was made in, for diagnosis; `TVECrypto` for ``Code/decryptionFailed``.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis; 0 for ``Code/decryptionFailed``.
    public var line: UInt { backing.line }

    private let backing: Backing

    private init(code: Code, reason: String, openSSLErrors: [OpenSSLErrorEntry], file: String, line: UInt) {
        backing = Backing(code: code, reason: reason, openSSLErrors: openSSLErrors, file: file, line: line)
    }

    /// `TVECryptoError.code: reason [OpenSSL: …] (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String {
        var text = "TVECryptoError.\(code): \(reason)"
        if !openSSLErrors.isEmpty {
            text += " [OpenSSL: " + openSSLErrors.map(\.message).joined(separator: "; ") + "]"
        }
        return text + " (\(file):\(line))"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide however much it records.
    private final class Backing: Sendable {
        let code: Code
        let reason: String
        let openSSLErrors: [OpenSSLErrorEntry]
        let file: String
        let line: UInt

        init(code: Code, reason: String, openSSLErrors: [OpenSSLErrorEntry], file: String, line: UInt) {
            self.code = code
            self.reason = reason
            self.openSSLErrors = openSSLErrors
            self.file = file
            self.line = line
        }
    }

    // MARK: Factories (one per code, as in swift-certificates)

    /// Makes an error with the code ``TVECryptoError/Code/emptyInput``; `reason` is "the input is empty" unless given.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func emptyInput(reason: String = "the input is empty", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .emptyInput, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/inputTooLarge``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func inputTooLarge(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .inputTooLarge, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/invalidBase64``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func invalidBase64(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidBase64, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/malformedKey``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func malformedKey(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedKey, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/malformedCertificate``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func malformedCertificate(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedCertificate, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/malformedPKCS12``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func malformedPKCS12(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedPKCS12, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/unsupportedKeyType``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func unsupportedKeyType(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .unsupportedKeyType, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/keyTooSmall``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func keyTooSmall(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .keyTooSmall, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/keyTooLarge``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func keyTooLarge(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .keyTooLarge, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/passphraseRequired``. This thread's OpenSSL error queue is cleared, not
    /// reported. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func passphraseRequired(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        clearOpenSSLErrors()
        return Self(code: .passphraseRequired, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/wrongPassword``. This thread's OpenSSL error queue is cleared, not
    /// reported. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func wrongPassword(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        clearOpenSSLErrors()
        return Self(code: .wrongPassword, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/keyCertificateMismatch``. This thread's OpenSSL error queue is cleared, not
    /// reported. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func keyCertificateMismatch(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        clearOpenSSLErrors()
        return Self(code: .keyCertificateMismatch, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/unsupportedAlgorithm``.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func unsupportedAlgorithm(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .unsupportedAlgorithm, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/invalidParameter``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func invalidParameter(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidParameter, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/signingFailed``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func signingFailed(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .signingFailed, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/encryptionFailed``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func encryptionFailed(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .encryptionFailed, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Every decryption failure. The reason is fixed and the OpenSSL queue is cleared, not reported, so
    /// that no detail distinguishes one failure from another: `file` and `line` are taken for the common shape and
    /// ignored (the error records `TVECrypto`, line 0), since the call site would tell one cause from another.
    @inline(never)
    public static func decryptionFailed(file: String = #fileID, line: UInt = #line) -> Self {
        clearOpenSSLErrors()
        return Self(code: .decryptionFailed, reason: "decryption failed", openSSLErrors: [], file: "TVECrypto", line: 0)
    }
    /// Makes an error with the code ``TVECryptoError/Code/authenticationFailed``; `reason` is "the authentication tag does not
    /// verify" unless given. This thread's OpenSSL error queue is cleared, not reported.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func authenticationFailed(
        reason: String = "the authentication tag does not verify", file: String = #fileID, line: UInt = #line
    ) -> Self {
        clearOpenSSLErrors()
        return Self(code: .authenticationFailed, reason: reason, openSSLErrors: [], file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/randomFailure``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``; `reason` is "RAND_bytes failed" unless given.
    /// `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func randomFailure(reason: String = "RAND_bytes failed", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .randomFailure, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
    /// Makes an error with the code ``TVECryptoError/Code/openSSLFailure``, draining this thread's OpenSSL error queue into
    /// ``TVECryptoError/openSSLErrors``. `file` and `line` (the caller's by default) end its ``TVECryptoError/description``.
    @inline(never)
    public static func openSSLFailure(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .openSSLFailure, reason: reason, openSSLErrors: drainOpenSSLErrors(), file: file, line: line)
    }
}

/// Empties this thread's OpenSSL error queue into entries, oldest first (at most 16 are kept).
func drainOpenSSLErrors() -> [TVECryptoError.OpenSSLErrorEntry] {
    var entries: [TVECryptoError.OpenSSLErrorEntry] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        guard entries.count < 16 else { continue }
        var buffer = [CChar](repeating: 0, count: 256)
        let message = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress else { return "" }
            ERR_error_string_n(code, base, pointer.count)
            return String(cString: base)
        }
        entries.append(.init(code: code, message: message))
    }
    return entries
}

/// Clears this thread's OpenSSL error queue after an expected failure, so stale entries never reach the next call.
@inline(__always)
func clearOpenSSLErrors() {
    ERR_clear_error()
}
