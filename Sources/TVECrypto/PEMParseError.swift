/// Why the PEM reader refused a text, in the package's one error shape: a stable ``code``, a ``reason`` that names
/// the block at fault (never its body), and the ``file`` and ``line`` it was made on; equal on the code. Internal:
/// every caller turns it into a ``TVECryptoError`` of its own code, keeping the reason.
struct PEMParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        var description: String { rawValue }

        /// A BEGIN line that is not closed or has no valid label, a block without its END line, or an END line with
        /// another label.
        static let malformed = Code(rawValue: "malformed")
        /// More than ``PEMBlock/maximumBlocks`` blocks.
        static let tooManyBlocks = Code(rawValue: "tooManyBlocks")
        /// A block's body is not Base64.
        static let invalidBase64 = Code(rawValue: "invalidBase64")
    }

    /// The stable code; two errors are equal when their codes are.
    var code: Code { backing.code }
    /// What was wrong and in which block; never the block's body.
    var reason: String { backing.reason }
    /// The file (`#fileID`) the error was made in, for diagnosis.
    var file: String { backing.file }
    /// The line the error was made on, for diagnosis.
    var line: UInt { backing.line }

    private let backing: Backing

    /// An error of `code` (``Code/malformed`` unless given), made at `file`:`line` (the caller's by default).
    init(_ code: Code = .malformed, reason: String, file: String = #fileID, line: UInt = #line) {
        backing = Backing(code: code, reason: reason, file: file, line: line)
    }

    /// `PEMParseError.code: reason (file:line)`, for diagnosis.
    var description: String { "PEMParseError.\(code): \(reason) (\(file):\(line))" }

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
}
