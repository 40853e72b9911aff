internal import COpenSSL
internal import CTVEOpenSSL
import Foundation

/// Size limits and policy shared by every key loader.
enum RSAKeyPolicy {
    /// The smallest modulus accepted by the safe initialisers.
    static let minimumBits = 2048
    /// The smallest modulus accepted even by the `unsafe` initialisers.
    static let minimumUnsafeBits = 512
    /// The largest modulus accepted (OpenSSL's own limit for RSA public operations).
    static let maximumBits = 16384
    /// The largest encoded key accepted (a PEM 16384-bit private key is about 12.5 KB).
    static let maximumEncodedKeyBytes = 64 * 1024
    /// The largest PBKDF2 / PKCS#12 iteration count accepted in an encrypted key or PKCS#12 file. The count comes
    /// from the file and sets how much CPU opening it costs; 2,000,000 is over three times the 600,000 that
    /// OWASP recommends for PBKDF2-SHA256 (about 0.5 s here), while 2^31 would keep a core busy for minutes.
    static let maximumPBEIterations = 2_000_000

    static func checkIterations(_ count: Int, what: String) throws {
        guard count <= maximumPBEIterations else {
            throw TVECryptoError.inputTooLarge(
                reason: count == Int.max
                    ? "the \(what) uses a key-derivation function other than PBKDF2 (such as scrypt), which is not accepted"
                    : "the \(what) asks for \(count) password iterations; the limit is \(maximumPBEIterations)")
        }
    }

    /// Checks that `key` is RSA and of an allowed size; frees nothing.
    static func check(_ key: OpaquePointer, allowingSmallKeys: Bool) throws {
        try check(
            key, minimumBits: allowingSmallKeys ? minimumUnsafeBits : minimumBits,
            hint: allowingSmallKeys ? "" : " (use an unsafe initialiser to accept smaller keys)")
    }

    /// The smallest modulus accepted by the `allowing1024BitKeys` loaders of public keys.
    static let minimumLegacyBits = 1024

    /// Checks that `key` is RSA with at least `minimumBits` bits (and at most ``maximumBits``); frees nothing.
    static func check(_ key: OpaquePointer, minimumBits minimum: Int, hint: String) throws {
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            let name = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
            throw TVECryptoError.unsupportedKeyType(reason: "the key is \(name), not RSA")
        }
        let bits = Int(EVP_PKEY_get_bits(key))
        if bits < minimum {
            throw TVECryptoError.keyTooSmall(reason: "the RSA key has \(bits) bits; at least \(minimum) are required" + hint)
        }
        if bits > maximumBits {
            throw TVECryptoError.keyTooLarge(reason: "the RSA key has \(bits) bits; at most \(maximumBits) are accepted")
        }
        try checkPublicExponent(key)
    }

    /// The public exponent must be odd, at least 3, at most 64 bits and below the modulus: `e = 1` would make any
    /// well-formed block a valid signature, and a huge `e` would make every verification as slow as a private-key
    /// operation (OpenSSL's own public-operation checks, which verification below the EVP layer must repeat).
    static func checkPublicExponent(_ key: OpaquePointer) throws {
        var n: OpaquePointer? = nil
        var e: OpaquePointer? = nil
        guard copenssl_rsa_public_numbers(key, &n, &e) == 1, let n, let e else {
            ERR_clear_error()
            throw TVECryptoError.malformedKey(reason: "the RSA modulus and exponent cannot be read")
        }
        defer {
            BN_free(n)
            BN_free(e)
        }
        guard BN_is_odd(e) == 1, BN_num_bits(e) >= 2, BN_num_bits(e) <= 64, BN_ucmp(e, n) < 0 else {
            throw TVECryptoError.malformedKey(
                reason: "the RSA public exponent must be odd, at least 3, at most 64 bits and below the modulus")
        }
    }

    /// Runs a `d2i_*` function over all of `der` and returns its result only if it consumed every byte.
    static func decodeDER(
        _ der: UnsafeRawBufferPointer,
        _ decoder: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
        free: (OpaquePointer) -> Void
    ) -> OpaquePointer? {
        guard der.count > 0 else { return nil }
        var cursor: UnsafePointer<UInt8>? = der.bytePointer
        guard let object = decoder(&cursor, der.count) else { return nil }
        guard let end = cursor, end == der.bytePointer + der.count else {
            free(object)
            return nil
        }
        return object
    }

    /// Decodes an RSA public key from DER: SubjectPublicKeyInfo first, then PKCS#1 `RSAPublicKey`.
    /// ``decodePublicDER(_:)`` for any bytes, with the encoded-key size limit; `nil` when they are not a public key.
    static func decodeDERPublicKeyOrNil(_ bytes: some DataProtocol) -> OpaquePointer? {
        guard bytes.count <= maximumEncodedKeyBytes else { return nil }
        return bytes.withContiguousBytes { decodePublicDER($0) }
    }

    static func decodePublicDER(_ der: UnsafeRawBufferPointer) -> OpaquePointer? {
        if let key = decodeDER(der, { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) }) {
            return key
        }
        ERR_clear_error()
        if let key = decodeDER(der, { d2i_PublicKey(EVP_PKEY_RSA, nil, $0, $1) }, free: { EVP_PKEY_free($0) }) {
            return key
        }
        ERR_clear_error()
        return nil
    }

    /// Decodes a private key (PKCS#8, encrypted PKCS#8, PKCS#1, legacy-encrypted PEM) with OpenSSL's decoder.
    /// - Parameters:
    ///   - inputType: `"PEM"` or `"DER"`.
    ///   - encrypted: whether the caller found the input to be encrypted (for the error code).
    enum InputType: String {
        case der = "DER"
        case pem = "PEM"

        /// A C string with static storage: the decoder keeps this pointer and reads it after the call returns.
        var cString: UnsafePointer<CChar> {
            switch self {
            case .der: return copenssl_literal_DER()
            case .pem: return copenssl_literal_PEM()
            }
        }
    }

    static func decodePrivate(
        _ bytes: UnsafeRawBufferPointer, inputType: InputType, passphrase: SecureBytes?,
        encrypted: Bool
    ) throws -> OpaquePointer {
        if encrypted, inputType == .der {
            // Read the PBKDF2 iteration count before OpenSSL spends the work.
            if let sig = decodeDER(bytes, { d2i_X509_SIG(nil, $0, $1) }, free: { X509_SIG_free($0) }) {
                defer { X509_SIG_free(sig) }
                try checkIterations(copenssl_x509_sig_iterations(sig), what: "encrypted private key")
            }
            ERR_clear_error()
        }
        // OpenSSL keeps the address of the output slot in the decoder and writes the key into it later, during
        // OSSL_DECODER_from_data, so the slot must outlive both calls (a Swift `&key` lives for one call only).
        let slot = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        slot.initialize(to: nil)
        defer {
            slot.deinitialize(count: 1)
            slot.deallocate()
        }
        guard let decoder = OSSL_DECODER_CTX_new_for_pkey(slot, inputType.cString, nil, nil, copenssl_EVP_PKEY_KEYPAIR, nil, nil) else {
            throw TVECryptoError.openSSLFailure(reason: "OSSL_DECODER_CTX_new_for_pkey failed")
        }
        defer { OSSL_DECODER_CTX_free(decoder) }
        if let passphrase {
            let set = passphrase.withUnsafeBytes { OSSL_DECODER_CTX_set_passphrase(decoder, $0.bytePointer, $0.count) }
            guard set == 1 else { throw TVECryptoError.openSSLFailure(reason: "OSSL_DECODER_CTX_set_passphrase failed") }
        } else {
            guard copenssl_decoder_refuse_passphrase(decoder) == 1 else {
                throw TVECryptoError.openSSLFailure(reason: "could not set the passphrase callback")
            }
        }
        var cursor: UnsafePointer<UInt8>? = bytes.bytePointer
        var remaining = bytes.count
        // DER must be consumed entirely, as everywhere else; trailing bytes are an error.
        let decoded = OSSL_DECODER_from_data(decoder, &cursor, &remaining) == 1 && (inputType != .der || remaining == 0)
        let key = slot.pointee
        guard decoded, let key else {
            if let key { EVP_PKEY_free(key) }
            if encrypted {
                if passphrase == nil {
                    throw TVECryptoError.passphraseRequired(reason: "the private key is encrypted; give its passphrase")
                }
                throw TVECryptoError.wrongPassword(reason: "the passphrase does not decrypt the private key")
            }
            throw TVECryptoError.malformedKey(reason: "the \(inputType.rawValue) data is not a private key (PKCS#8 or PKCS#1)")
        }
        ERR_clear_error()
        return key
    }

    /// Whether DER bytes are an `EncryptedPrivateKeyInfo` (PKCS#8 §6).
    static func isEncryptedPKCS8(_ der: UnsafeRawBufferPointer) -> Bool {
        let sig = decodeDER(der, { d2i_X509_SIG(nil, $0, $1) }, free: { X509_SIG_free($0) })
        ERR_clear_error()
        guard let sig else { return false }
        X509_SIG_free(sig)
        return true
    }
}
