import Foundation

/// The one error type of ``TVEMetadata``, in the package's one error shape (swift-certificates' `CertificateError`):
/// equal only on its ``code``; it also records a ``reason`` and the ``file`` and ``line`` it was made on.
///
/// Messages say what was wrong and for which metadata key, never a plaintext, a key or a whole ciphertext.
/// Every failure that happens once a private key has been used (wrong key, bad padding, bad tag, a plaintext
/// that is not UTF-8) is the one ``Code/decryptionFailed`` code with the same message, so that callers cannot
/// build a padding oracle out of the error.
public struct MetadataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Backing: String, Sendable {
            case malformedDocument, malformedCiphertext, unsupportedAlgorithm, decryptionFailed, inputTooLarge,
                invalidConfiguration, encryptionFailed
        }
        fileprivate let backing: Backing

        /// The document is not JSON or not in the REST v1 / v2 shape (FORMATS.md §2).
        public static let malformedDocument = Code(backing: .malformedDocument)
        /// An encrypted value is neither well-formed RSA blocks nor a well-formed JWE (structure, Base64, lengths).
        public static let malformedCiphertext = Code(backing: .malformedCiphertext)
        /// A JWE names an algorithm TVEKit does not accept (`none`, `dir`, key wrapping, `RSA1_5` without opting
        /// in, compression, critical extensions, unknown `enc`).
        public static let unsupportedAlgorithm = Code(backing: .unsupportedAlgorithm)
        /// A value does not decrypt under the private key; always the same message.
        public static let decryptionFailed = Code(backing: .decryptionFailed)
        /// The document or a value is larger than the documented limits.
        public static let inputTooLarge = Code(backing: .inputTooLarge)
        /// A decryptor or encryptor was configured with something unusable.
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// Encrypting a value failed.
        public static let encryptionFailed = Code(backing: .encryptionFailed)

        public var description: String { backing.rawValue }

        /// The stable number of the code.
        public var number: Int {
            switch backing {
            case .malformedDocument: 3001
            case .malformedCiphertext: 3002
            case .unsupportedAlgorithm: 3003
            case .decryptionFailed: 3004
            case .inputTooLarge: 3005
            case .invalidConfiguration: 3010
            case .encryptionFailed: 3020
            }
        }
    }

    /// The stable code of this error; two errors are equal when their codes are.
    public var code: Code { backing.code }
    /// What was wrong and where.
    public var reason: String { backing.reason }
    /// The metadata key whose value failed, when the error concerns one value. It comes from the document: escape
    /// it before printing (``description`` does).
    public var key: String? { backing.key }
    /// The file (`#fileID`) the error was made in, for diagnosis; `TVEMetadata` for ``Code/decryptionFailed``.
    public var file: String { backing.file }
    /// The line the error was made on, for diagnosis; 0 for ``Code/decryptionFailed``.
    public var line: UInt { backing.line }

    private let backing: Backing

    private init(code: Code, reason: String, key: String? = nil, file: String, line: UInt) {
        backing = Backing(code: code, reason: reason, key: key, file: file, line: line)
    }

    /// The same error, attributed to the metadata key `key`.
    func about(key: String) -> MetadataError { MetadataError(code: code, reason: reason, key: key, file: file, line: line) }

    /// `MetadataError.code (key "…"): reason (file:line)`: for logs and diagnosis. Show users ``reason``.
    public var description: String {
        "MetadataError.\(code)" + (key.map { " (key \"\(UserMetadataDocument.printable($0))\")" } ?? "") + ": \(reason) (\(file):\(line))"
    }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error's storage: one reference, so that the error stays one word wide.
    private final class Backing: Sendable {
        let code: Code
        let reason: String
        let key: String?
        let file: String
        let line: UInt

        init(code: Code, reason: String, key: String?, file: String, line: UInt) {
            self.code = code
            self.reason = reason
            self.key = key
            self.file = file
            self.line = line
        }
    }

    /// A ``MetadataError/Code/malformedDocument`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func malformedDocument(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedDocument, reason: reason, file: file, line: line)
    }
    /// A ``MetadataError/Code/malformedCiphertext`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func malformedCiphertext(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedCiphertext, reason: reason, file: file, line: line)
    }
    /// An ``MetadataError/Code/unsupportedAlgorithm`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func unsupportedAlgorithm(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .unsupportedAlgorithm, reason: reason, file: file, line: line)
    }
    /// The one decryption failure: neither the message nor the place it records varies (`TVEMetadata`, line 0), since
    /// the call site would tell one cause from another (a padding oracle).
    @inline(never) public static func decryptionFailed() -> Self {
        Self(code: .decryptionFailed, reason: "the value does not decrypt with this private key", file: "TVEMetadata", line: 0)
    }
    /// An ``MetadataError/Code/inputTooLarge`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func inputTooLarge(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .inputTooLarge, reason: reason, file: file, line: line)
    }
    /// An ``MetadataError/Code/invalidConfiguration`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func invalidConfiguration(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }
    /// An ``MetadataError/Code/encryptionFailed`` error; `reason` says what was wrong, `file` and `line`
    /// (the caller's by default) where the error was made.
    @inline(never) public static func encryptionFailed(reason: String = "", file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .encryptionFailed, reason: reason, file: file, line: line)
    }
}
