internal import COpenSSL
import Foundation

/// The bare OpenSSL calls that `openssl speed rsa2048` times, for measuring TVEKit's overhead.
///
/// Each operation runs on one context initialised once, with the digest computed once: exactly the RSA
/// operation and nothing else. `tvekit speed` and the benchmarks alternate short slices of these with the
/// public API on the same key, so the ratio they report is not skewed by the machine's speed changing
/// between two separate runs. Not for production use.
@_spi(Benchmarks)
public final class OpenSSLBaseline: @unchecked Sendable {
    // Not Sendable in spirit: one instance per measuring thread. Marked so it can cross into a task.
    private let verifyContext: OpaquePointer
    private let signContext: OpaquePointer
    private let decryptContext: OpaquePointer
    private let digest: [UInt8]
    private let signature: [UInt8]
    private let ciphertext: [UInt8]
    private var output: [UInt8]

    /// Prepares contexts for `key`, a SHA-256 digest of `message`, its signature and a PKCS#1 v1.5 ciphertext.
    public init(key: RSAPrivateKey, message: [UInt8]) throws {
        digest = try HashFunction.sha256.hash(message)
        signature = try key.signature(for: message)
        ciphertext = try key.publicKey.encrypt(Array(digest.prefix(16)), padding: ._weakAndInsecurePKCS1v15)
        output = [UInt8](repeating: 0, count: key.backing.byteCount)
        func context(_ pkey: OpaquePointer, _ setUp: (OpaquePointer) -> Bool) -> OpaquePointer? {
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
            guard setUp(context) else {
                EVP_PKEY_CTX_free(context)
                return nil
            }
            return context
        }
        let md = HashFunction.sha256.evpMD
        let verify = context(key.publicKey.backing.pointer) {
            EVP_PKEY_verify_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
                && EVP_PKEY_CTX_set_signature_md($0, md) == 1
        }
        let sign = context(key.backing.pointer) {
            EVP_PKEY_sign_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
                && EVP_PKEY_CTX_set_signature_md($0, md) == 1
        }
        let decrypt = context(key.backing.pointer) {
            EVP_PKEY_decrypt_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
        }
        guard let verify, let sign, let decrypt else {
            // A class's deinit does not run when its init fails, so free what was made here.
            [verify, sign, decrypt].forEach { $0.map { EVP_PKEY_CTX_free($0) } }
            throw TVECryptoError.openSSLFailure(reason: "baseline context set-up failed")
        }
        verifyContext = verify
        signContext = sign
        decryptContext = decrypt
    }

    deinit {
        EVP_PKEY_CTX_free(verifyContext)
        EVP_PKEY_CTX_free(signContext)
        EVP_PKEY_CTX_free(decryptContext)
    }

    /// One `EVP_PKEY_verify` of the precomputed digest.
    public func verify() -> Bool {
        EVP_PKEY_verify(verifyContext, signature, signature.count, digest, digest.count) == 1
    }

    /// One `EVP_PKEY_sign` of the precomputed digest.
    public func sign() -> Bool {
        var length = output.count
        return EVP_PKEY_sign(signContext, &output, &length, digest, digest.count) == 1
    }

    /// One `EVP_PKEY_decrypt` of a PKCS#1 v1.5 block.
    public func decrypt() -> Bool {
        var length = output.count
        return EVP_PKEY_decrypt(decryptContext, &output, &length, ciphertext, ciphertext.count) == 1
    }
}
