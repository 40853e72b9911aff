internal import COpenSSL
import Foundation

/// A hash function: SHA-1 or SHA-2 (FIPS 180-4).
///
/// SHA-1 is offered for HMAC-SHA1 (the clientless request signature) and for OAEP with SHA-1 (RFC 8017
/// default parameters); it is refused for RSA signatures.
public struct HashFunction: Hashable, Sendable, CustomStringConvertible {
    enum Backing: String, Sendable { case sha1 = "SHA-1", sha224 = "SHA-224", sha256 = "SHA-256", sha384 = "SHA-384", sha512 = "SHA-512" }
    let backing: Backing

    /// SHA-1 (20-byte digest): for HMAC-SHA1 and RSA-OAEP only; refused for RSA signatures.
    public static let sha1 = HashFunction(backing: .sha1)
    /// SHA-224 (28-byte digest).
    public static let sha224 = HashFunction(backing: .sha224)
    /// SHA-256 (32-byte digest).
    public static let sha256 = HashFunction(backing: .sha256)
    /// SHA-384 (48-byte digest).
    public static let sha384 = HashFunction(backing: .sha384)
    /// SHA-512 (64-byte digest).
    public static let sha512 = HashFunction(backing: .sha512)

    /// Looks a hash function up by its usual name (`SHA-256`, `sha256`, `SHA256`, ...); `nil` when unknown.
    public init?(name: String) {
        let key = name.uppercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        switch key {
        case "SHA1": backing = .sha1
        case "SHA224", "SHA2224": backing = .sha224
        case "SHA256", "SHA2256": backing = .sha256
        case "SHA384", "SHA2384": backing = .sha384
        case "SHA512", "SHA2512": backing = .sha512
        default: return nil
        }
    }

    private init(backing: Backing) { self.backing = backing }

    /// The name, for example `SHA-256`.
    public var description: String { backing.rawValue }

    /// The length of a digest in bytes.
    public var digestByteCount: Int {
        switch backing {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The prefetched OpenSSL digest.
    var evpMD: OpaquePointer {
        let fetched = FetchedAlgorithms.shared
        switch backing {
        case .sha1: return fetched.sha1
        case .sha224: return fetched.sha224
        case .sha256: return fetched.sha256
        case .sha384: return fetched.sha384
        case .sha512: return fetched.sha512
        }
    }

    /// Returns the digest of `data`.
    /// - Throws: ``TVECryptoError/Code/openSSLFailure`` only if OpenSSL cannot allocate its context.
    public func hash(_ data: some DataProtocol) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestByteCount)
        try data.withContiguousBytes { input in
            try digest.withUnsafeMutableBufferPointer { output in
                guard let base = output.baseAddress else { throw TVECryptoError.openSSLFailure(reason: "no digest buffer") }
                try digestInto(input, base)
            }
        }
        return digest
    }

    /// Writes the digest of `input` to `output`, which has room for ``digestByteCount`` bytes (no allocation: for a
    /// caller that reuses one digest, as a verifier does for a signature check and a replay key).
    package func digest(_ input: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) throws {
        try digestInto(input, output)
    }

    /// Writes the digest of `input` to `output`, which has room for ``digestByteCount`` bytes.
    func digestInto(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutablePointer<UInt8>) throws {
        var length: UInt32 = 0
        guard EVP_Digest(input.baseAddress ?? UnsafeRawPointer(emptyBytePointer), input.count, output, &length, evpMD, nil) == 1,
            Int(length) == digestByteCount
        else { throw TVECryptoError.openSSLFailure(reason: "EVP_Digest(\(self)) failed") }
    }
}
