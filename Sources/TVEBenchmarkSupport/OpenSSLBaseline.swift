internal import COpenSSL
import Foundation
import TVECrypto

/// The bare OpenSSL calls that `openssl speed rsa2048` times, for measuring TVEKit's overhead.
///
/// Each operation runs on one context initialised once, with the digest computed once: exactly the RSA
/// operation and nothing else. `tvekit speed` and the benchmarks alternate short slices of these with the
/// public API on the same key, so the ratio they report is not skewed by the machine's speed changing
/// between two separate runs. Not for production use.
package final class OpenSSLBaseline: @unchecked Sendable {
    // Not Sendable in spirit: one instance per measuring thread. Marked so it can cross into a task.
    private let verifyContext: OpaquePointer
    private let signContext: OpaquePointer
    private let decryptContext: OpaquePointer
    private let oaepContext: OpaquePointer
    private let digest: [UInt8]
    private let signature: [UInt8]
    private let ciphertext: [UInt8]
    private let oaepCiphertext: [UInt8]
    private var output: [UInt8]

    /// Prepares contexts for `key`, a SHA-256 digest of `message`, its signature, a PKCS#1 v1.5 ciphertext and an
    /// OAEP (SHA-256, MGF1 with SHA-256) ciphertext.
    package init(key: RSAPrivateKey, message: [UInt8]) throws {
        digest = try HashFunction.sha256.hash(message)
        signature = try key.signature(for: message)
        ciphertext = try key.publicKey.encrypt(Array(digest.prefix(16)), padding: ._weakAndInsecurePKCS1v15)
        oaepCiphertext = try key.publicKey.encrypt(Array(digest.prefix(16)), padding: .oaepSHA256)
        output = [UInt8](repeating: 0, count: key.publicKey.modulusByteCount)
        func context(_ pkey: OpaquePointer, _ setUp: (OpaquePointer) -> Bool) -> OpaquePointer? {
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
            guard setUp(context) else {
                EVP_PKEY_CTX_free(context)
                return nil
            }
            return context
        }
        // Set-up only: the contexts below keep their digest, so how it is found costs nothing per call.
        let md = EVP_sha256()
        let verify = key.publicKey.withUnsafeEVPPKEY { pkey in
            context(pkey) {
                EVP_PKEY_verify_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
                    && EVP_PKEY_CTX_set_signature_md($0, md) == 1
            }
        }
        let (sign, decrypt, oaep) = key.withUnsafeEVPPKEY { pkey in
            (
                context(pkey) {
                    EVP_PKEY_sign_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
                        && EVP_PKEY_CTX_set_signature_md($0, md) == 1
                },
                context(pkey) {
                    EVP_PKEY_decrypt_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) == 1
                },
                context(pkey) {
                    EVP_PKEY_decrypt_init($0) == 1 && EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_OAEP_PADDING) == 1
                        && EVP_PKEY_CTX_set_rsa_oaep_md($0, md) == 1 && EVP_PKEY_CTX_set_rsa_mgf1_md($0, md) == 1
                }
            )
        }
        guard let verify, let sign, let decrypt, let oaep else {
            // A class's deinit does not run when its init fails, so free what was made here.
            [verify, sign, decrypt, oaep].forEach { $0.map { EVP_PKEY_CTX_free($0) } }
            throw openSSLSetUpFailure("baseline context set-up failed")
        }
        verifyContext = verify
        signContext = sign
        decryptContext = decrypt
        oaepContext = oaep
        // Checked once every property is set, so that deinit frees the contexts when this throws.
        guard decryptOAEP() else { throw openSSLSetUpFailure("the baseline OAEP ciphertext does not decrypt") }
    }

    deinit {
        EVP_PKEY_CTX_free(verifyContext)
        EVP_PKEY_CTX_free(signContext)
        EVP_PKEY_CTX_free(decryptContext)
        EVP_PKEY_CTX_free(oaepContext)
    }

    /// One `EVP_PKEY_verify` of the precomputed digest.
    package func verify() -> Bool {
        EVP_PKEY_verify(verifyContext, signature, signature.count, digest, digest.count) == 1
    }

    /// One `EVP_PKEY_sign` of the precomputed digest.
    package func sign() -> Bool {
        var length = output.count
        return EVP_PKEY_sign(signContext, &output, &length, digest, digest.count) == 1
    }

    /// One `EVP_PKEY_decrypt` of a PKCS#1 v1.5 block.
    package func decrypt() -> Bool {
        var length = output.count
        return EVP_PKEY_decrypt(decryptContext, &output, &length, ciphertext, ciphertext.count) == 1
    }

    /// One `EVP_PKEY_decrypt` of an OAEP block (SHA-256, MGF1 with SHA-256).
    package func decryptOAEP() -> Bool {
        var length = output.count
        return EVP_PKEY_decrypt(oaepContext, &output, &length, oaepCiphertext, oaepCiphertext.count) == 1
    }
}

/// The bare verification of one known RSASSA-PKCS1-v1_5 SHA-256 signature by a public key alone, the context set up
/// once: ``verify()`` is the `EVP_PKEY_verify` of the precomputed digest that `openssl speed` times, and
/// ``verifyMessage()`` also hashes the signed message (SHA-256 with the digest fetched once, then `EVP_PKEY_verify`):
/// what any verifier of the message must do, the baseline of the media-token verifications. Not for production use.
package final class OpenSSLVerifyBaseline: @unchecked Sendable {
    // Not Sendable in spirit: one instance per measuring thread. Marked so it can cross into a task.
    private let context: OpaquePointer
    private let digest: [UInt8]
    private let signature: [UInt8]
    private let message: [UInt8]
    /// SHA-256, fetched once (an `EVP_sha256()` per call would fetch it again each time on OpenSSL 3).
    private let sha256: OpaquePointer

    /// Prepares a verify context for `publicKey` and the SHA-256 digest of `message`, which `signature` signs.
    /// - Throws: ``SpeedError/Code/setUp`` when the context cannot be set up or the signature does not verify.
    package init(publicKey: RSAPublicKey, signature: some DataProtocol, message: some DataProtocol) throws {
        let digest = try HashFunction.sha256.hash(message)
        guard let context = publicKey.withUnsafeEVPPKEY({ EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }) else {
            throw openSSLSetUpFailure("baseline context set-up failed")
        }
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1, let sha256 = EVP_MD_fetch(nil, "SHA256", nil)
        else {
            EVP_PKEY_CTX_free(context)
            throw openSSLSetUpFailure("baseline context set-up failed")
        }
        self.context = context
        self.digest = digest
        self.signature = [UInt8](signature)
        self.message = [UInt8](message)
        self.sha256 = sha256
        // Checked once all properties are set, so that deinit frees the context when this throws.
        guard verify(), verifyMessage() else { throw openSSLSetUpFailure("the baseline signature does not verify") }
    }

    deinit {
        EVP_PKEY_CTX_free(context)
        EVP_MD_free(sha256)
    }

    /// SHA-256 of the message, then one `EVP_PKEY_verify` of that digest.
    package func verifyMessage() -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { computed in
            var length: UInt32 = 32
            guard message.withUnsafeBytes({ EVP_Digest($0.baseAddress, $0.count, computed.baseAddress, &length, sha256, nil) }) == 1
            else { return false }
            return EVP_PKEY_verify(context, signature, signature.count, computed.baseAddress, Int(length)) == 1
        }
    }

    /// One `EVP_PKEY_verify` of the precomputed digest.
    package func verify() -> Bool {
        EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
    }

    /// Generates an RSA key pair of `keySizeInBits` (e = 65537) with OpenSSL directly, signs `message` with it
    /// (RSASSA-PKCS1-v1_5, SHA-256) and returns the public key, the signature and a baseline for them.
    ///
    /// This exists so that benchmarks can measure 1024-bit verification, which real Adobe media tokens still use:
    /// ``RSAPrivateKey/init(keySizeInBits:)`` refuses to generate keys under 2048 bits, on purpose. The private
    /// key never leaves this function.
    package static func generatingKeyPair(keySizeInBits: Int, message: some DataProtocol) throws
        -> (publicKey: RSAPublicKey, signature: [UInt8], baseline: OpenSSLVerifyBaseline)
    {
        guard keySizeInBits >= 1024, keySizeInBits <= 4096 else {
            throw SpeedError.setUp(reason: "benchmark keys are 1024 to 4096 bits")
        }
        // The key type must be a string with static storage: the context keeps the pointer.
        guard let generator = EVP_PKEY_CTX_new_from_name(nil, copenssl_literal_RSA(), nil) else {
            throw openSSLSetUpFailure("EVP_PKEY_CTX_new_from_name failed")
        }
        defer { EVP_PKEY_CTX_free(generator) }
        var generated: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(generator) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(generator, Int32(keySizeInBits)) == 1,
            EVP_PKEY_generate(generator, &generated) == 1, let pkey = generated
        else {
            EVP_PKEY_free(generated)
            throw openSSLSetUpFailure("RSA key generation failed")
        }
        defer { EVP_PKEY_free(pkey) }

        let digest = try HashFunction.sha256.hash(message)
        guard let signer = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw openSSLSetUpFailure("EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(signer) }
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(pkey)))
        var length = signature.count
        guard EVP_PKEY_sign_init(signer) == 1, EVP_PKEY_CTX_set_rsa_padding(signer, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(signer, EVP_sha256()) == 1,
            EVP_PKEY_sign(signer, &signature, &length, digest, digest.count) == 1, length == signature.count
        else {
            throw openSSLSetUpFailure("signing with the generated key failed")
        }

        var der: UnsafeMutablePointer<UInt8>? = nil
        let derLength = i2d_PUBKEY(pkey, &der)
        guard derLength > 0, let der else { throw openSSLSetUpFailure("i2d_PUBKEY failed") }
        let publicDER = [UInt8](UnsafeBufferPointer(start: der, count: Int(derLength)))
        copenssl_OPENSSL_free(der)
        let publicKey = try RSAPublicKey(unsafeDERRepresentation: publicDER)
        return (publicKey, signature, try OpenSSLVerifyBaseline(publicKey: publicKey, signature: signature, message: message))
    }
}

/// OpenSSL's bare Base64 decoder, `EVP_DecodeBlock`, on one fixed input decoded again and again into a buffer
/// allocated once: the floor for TVEKit's Base64 decoder and for parsing a serialized media token. The input
/// must be whitespace-free padded Base64 (`EVP_DecodeBlock` trims only leading and trailing whitespace).
/// Not for production use.
package final class OpenSSLBase64Baseline: @unchecked Sendable {
    // Not Sendable in spirit: one instance per measuring thread. Marked so it can cross into a task.
    private let input: UnsafeMutableBufferPointer<UInt8>
    private let output: UnsafeMutableBufferPointer<UInt8>
    /// What `EVP_DecodeBlock` returns for the input: three bytes per group of four, padding included.
    private let expectedLength: Int32

    /// Copies `encoded` and checks that `EVP_DecodeBlock` decodes it to what ``Base64/decode(bytes:options:)``
    /// gives.
    /// - Throws: `TVECryptoError.invalidBase64` when the input is not strict Base64; ``SpeedError/Code/setUp`` when
    ///   it is empty, not a multiple of 4 bytes, too large for an `int`, or not decoded alike by both.
    package init(encoded: some Collection<UInt8>) throws {
        let bytes = [UInt8](encoded)
        guard !bytes.isEmpty, bytes.count % 4 == 0, bytes.count < Int(Int32.max) else {
            throw SpeedError.setUp(reason: "the Base64 baseline needs a non-empty multiple of 4 bytes")
        }
        let expected = try Base64.decode(bytes: bytes)
        input = .allocate(capacity: bytes.count)
        _ = input.initialize(from: bytes)
        output = .allocate(capacity: bytes.count / 4 * 3)
        output.initialize(repeating: 0)
        expectedLength = Int32(bytes.count / 4 * 3)
        guard decode(), Array(output.prefix(expected.count)) == expected, expected.count + 2 >= Int(expectedLength) else {
            throw SpeedError.setUp(reason: "EVP_DecodeBlock and Base64.decode disagree on the baseline input")
        }
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// One `EVP_DecodeBlock` of the whole input.
    package func decode() -> Bool {
        // Both buffers are non-empty, so their base addresses exist.
        guard let to = output.baseAddress, let from = input.baseAddress else { return false }
        return EVP_DecodeBlock(to, from, Int32(input.count)) == expectedLength
    }
}

/// A baseline's set-up failed in OpenSSL: empties this thread's OpenSSL error queue, so that no stale entry reaches
/// the next TVECrypto call's error, and says what failed (and where: the caller's file and line).
private func openSSLSetUpFailure(_ reason: String, file: String = #fileID, line: UInt = #line) -> SpeedError {
    ERR_clear_error()
    return SpeedError.setUp(reason: reason, file: file, line: line)
}
