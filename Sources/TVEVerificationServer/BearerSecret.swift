import Foundation
import TVECrypto

/// A shared secret the verification server asks for as `Authorization: Bearer <secret>` on `POST /verify` and
/// `GET /metrics`, for operators who cannot keep the service on a private network. Only its SHA-256 is kept; a
/// presented token is hashed and compared in constant time, so neither its contents nor its length leak through timing.
public struct BearerSecret: Sendable {
    /// The shortest secret accepted (16 bytes: 128 bits when random).
    public static let minimumBytes = 16
    private let digest: [UInt8]

    /// - Throws: ``VerificationServerError`` `.invalidSecret` when the secret is shorter than ``minimumBytes``, over 4 KiB,
    ///   or holds whitespace or control characters.
    public init(_ secret: String) throws(VerificationServerError) {
        let bytes = Array(secret.utf8)
        guard bytes.count >= Self.minimumBytes, bytes.count <= 4096, bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw VerificationServerError(
                .invalidSecret, "the bearer secret must be \(Self.minimumBytes) to 4096 bytes without whitespace or control characters")
        }
        guard let digest = try? HashFunction.sha256.hash(bytes) else {
            throw VerificationServerError(.invalidSecret, "the bearer secret cannot be hashed")
        }
        self.digest = digest
    }

    /// The secret in a file (one line; the trailing line break ignored).
    public init(contentsOfFile path: String) throws(VerificationServerError) {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 8192 else {
            throw VerificationServerError(.invalidSecret, "the bearer secret file cannot be read or is over 8 KiB")
        }
        try self.init(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines))
    }

    /// Whether an `Authorization` header value carries the secret.
    public func accepts(authorization value: String?) -> Bool {
        guard let value, value.utf8.count <= 8192, value.lowercased().hasPrefix("bearer ") else { return false }
        let token = Array(value.utf8.dropFirst(7))
        guard let presented = try? HashFunction.sha256.hash(token) else { return false }
        return ConstantTime.equals(presented, digest)
    }
}
