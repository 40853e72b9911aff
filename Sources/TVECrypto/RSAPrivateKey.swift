internal import COpenSSL
import Foundation

/// An RSA private key, parsed once and kept as an OpenSSL `EVP_PKEY`.
///
/// Accepted encodings: PKCS#8 `PrivateKeyInfo` (PEM `PRIVATE KEY` or DER), PKCS#8 `EncryptedPrivateKeyInfo`
/// (PEM `ENCRYPTED PRIVATE KEY` or DER) with a passphrase, PKCS#1 `RSAPrivateKey` (PEM `RSA PRIVATE KEY`,
/// also with the legacy `Proc-Type: 4,ENCRYPTED` headers, or DER), and the key of a PKCS#12 file through
/// ``PKCS12Bundle``. OpenSSL never prompts for a passphrase: a missing one is
/// ``TVECryptoError/Code/passphraseRequired``, a wrong one ``TVECryptoError/Code/wrongPassword``.
///
/// One value is safe to use from many threads at once. Private-key operations use RSA blinding (OpenSSL's
/// default). The key material lives in OpenSSL's memory, which OpenSSL wipes when the last copy is released.
public struct RSAPrivateKey: Sendable, CustomStringConvertible {
    let backing: EVPKey
    /// The public half.
    public let publicKey: RSAPublicKey

    /// The largest ciphertext ``decryptPKCS1v15Blocks(_:)`` accepts, 1 MiB.
    public static let maximumBlockCiphertextBytes = 1 << 20

    init(backing: EVPKey, allowingSmallKeys: Bool) throws {
        try RSAKeyPolicy.check(backing.pointer, allowingSmallKeys: allowingSmallKeys)
        // A public-only copy, so that the public key never carries private material.
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(backing.pointer, &output)
        guard length > 0, let output else { throw TVECryptoError.openSSLFailure(reason: "i2d_PUBKEY failed") }
        defer { copenssl_OPENSSL_free(output) }
        guard let publicOnly = RSAKeyPolicy.decodePublicDER(UnsafeRawBufferPointer(start: output, count: Int(length))) else {
            throw TVECryptoError.openSSLFailure(reason: "could not re-read the public key")
        }
        publicKey = try RSAPublicKey(backing: EVPKey(taking: publicOnly), allowingSmallKeys: allowingSmallKeys)
        self.backing = backing
    }

    /// Loads a PEM private key.
    /// - Parameters:
    ///   - pemRepresentation: `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY` or `RSA PRIVATE KEY`.
    ///   - passphrase: needed for encrypted keys; ignored for plain ones.
    /// - Throws: ``TVECryptoError/Code/malformedKey``, ``TVECryptoError/Code/passphraseRequired``,
    ///   ``TVECryptoError/Code/wrongPassword``, ``TVECryptoError/Code/unsupportedKeyType``,
    ///   ``TVECryptoError/Code/keyTooSmall``, ``TVECryptoError/Code/keyTooLarge``, size errors.
    public init(pemRepresentation: String, passphrase: String? = nil) throws {
        try self.init(pemText: pemRepresentation, passphrase: passphrase, allowingSmallKeys: false)
    }

    /// Loads a DER private key: PKCS#8, encrypted PKCS#8 (with `passphrase`) or PKCS#1.
    public init(derRepresentation: some DataProtocol, passphrase: String? = nil) throws {
        try self.init(der: derRepresentation, passphrase: passphrase.map(SecureBytes.init(utf8:)), allowingSmallKeys: false)
    }

    /// Loads a PEM or DER private key, whichever `bytes` holds (what `tvekit` reads from a key file).
    public init(encoded bytes: some DataProtocol, passphrase: String? = nil) throws {
        let secret = passphrase.map(SecureBytes.init(utf8:))
        if PEMBlock.looksLikePEM(bytes) {
            var copy = [UInt8](bytes)
            defer { copy.withUnsafeMutableBytes { wipe($0) } }
            try self.init(pem: copy, passphrase: secret, allowingSmallKeys: false)
        } else {
            try self.init(der: bytes, passphrase: secret, allowingSmallKeys: false)
        }
    }

    /// Like ``init(pemRepresentation:passphrase:)`` but accepts keys from 512 bits up.
    /// - Warning: keys under 2048 bits can be factored by well-funded attackers; use this only for legacy data
    ///   and tests.
    public init(unsafePEMRepresentation pem: String, passphrase: String? = nil) throws {
        try self.init(pemText: pem, passphrase: passphrase, allowingSmallKeys: true)
    }

    /// Like ``init(derRepresentation:passphrase:)`` but accepts keys from 512 bits up.
    /// - Warning: see ``init(unsafePEMRepresentation:passphrase:)``.
    public init(unsafeDERRepresentation der: some DataProtocol, passphrase: String? = nil) throws {
        try self.init(der: der, passphrase: passphrase.map(SecureBytes.init(utf8:)), allowingSmallKeys: true)
    }

    /// Generates a new key with public exponent 65537.
    /// - Parameter keySizeInBits: 2048 to 16384.
    public init(keySizeInBits: Int = 2048) throws {
        guard keySizeInBits >= RSAKeyPolicy.minimumBits, keySizeInBits <= RSAKeyPolicy.maximumBits else {
            throw TVECryptoError.invalidParameter(
                reason: "RSA key size \(keySizeInBits) is outside \(RSAKeyPolicy.minimumBits)...\(RSAKeyPolicy.maximumBits)")
        }
        // The context keeps the key-type pointer, so it must be a static C string.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, copenssl_literal_RSA(), nil) else {
            throw TVECryptoError.openSSLFailure(reason: "EVP_PKEY_CTX_new_from_name(RSA) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(keySizeInBits)) == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw TVECryptoError.openSSLFailure(reason: "RSA key generation failed") }
        try self.init(backing: EVPKey(taking: key), allowingSmallKeys: false)
    }

    private init(pemText: String, passphrase: String?, allowingSmallKeys: Bool) throws {
        var copy = Array(pemText.utf8)
        defer { copy.withUnsafeMutableBytes { wipe($0) } }
        try self.init(pem: copy, passphrase: passphrase.map(SecureBytes.init(utf8:)), allowingSmallKeys: allowingSmallKeys)
    }

    /// Loads the first private key block of PEM bytes. Only that block's bytes reach OpenSSL; every decoded
    /// copy is wiped before returning.
    init(pem: [UInt8], passphrase: SecureBytes?, allowingSmallKeys: Bool) throws {
        try checkInputSize(pem.count, limit: RSAKeyPolicy.maximumEncodedKeyBytes, what: "PEM private key")
        var blocks: [PEMBlock]
        switch PEMBlock.parseAll(pem) {
        case .success(let parsed): blocks = parsed
        case .failure(let error): throw TVECryptoError.malformedKey(reason: error.reason)
        }
        defer { for index in blocks.indices { blocks[index].wipe() } }
        let labels = ["PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY"]
        // Work through the index: a copy of the block would share its DER buffer and defeat the wipe below.
        guard let index = blocks.firstIndex(where: { labels.contains($0.label) }) else {
            let found = blocks.map(\.label)
            if found.contains(where: { $0.hasSuffix("PRIVATE KEY") }) {
                throw TVECryptoError.unsupportedKeyType(reason: "the PEM holds \(found.joined(separator: ", ")), not an RSA key")
            }
            throw TVECryptoError.malformedKey(
                reason: found.isEmpty ? "no PEM block found" : "no private key block; found \(found.joined(separator: ", "))")
        }
        let encrypted = blocks[index].label == "ENCRYPTED PRIVATE KEY" || blocks[index].hasHeaders
        let range = blocks[index].range
        // Legacy encrypted PEM needs its headers, so that block goes to the decoder as PEM; every other block
        // goes as its DER, so text around it cannot confuse the decoder.
        let key: OpaquePointer
        if blocks[index].hasHeaders {
            key = try pem.withUnsafeBytes {
                try RSAKeyPolicy.decodePrivate(
                    UnsafeRawBufferPointer(rebasing: $0[range]), inputType: .pem,
                    passphrase: passphrase, encrypted: encrypted)
            }
        } else {
            key = try blocks[index].der.withUnsafeBytes {
                try RSAKeyPolicy.decodePrivate($0, inputType: .der, passphrase: passphrase, encrypted: encrypted)
            }
        }
        try self.init(backing: EVPKey(taking: key), allowingSmallKeys: allowingSmallKeys)
    }

    private init(der: some DataProtocol, passphrase: SecureBytes?, allowingSmallKeys: Bool) throws {
        try checkInputSize(der.count, limit: RSAKeyPolicy.maximumEncodedKeyBytes, what: "DER private key")
        let key = try der.withContiguousBytes { bytes in
            try RSAKeyPolicy.decodePrivate(
                bytes, inputType: .der, passphrase: passphrase,
                encrypted: RSAKeyPolicy.isEncryptedPKCS8(bytes))
        }
        try self.init(backing: EVPKey(taking: key), allowingSmallKeys: allowingSmallKeys)
    }

    /// The modulus length in bits.
    public var keySizeInBits: Int { backing.bits }

    /// The unencrypted PKCS#8 DER encoding, in a buffer that is wiped when released.
    public var pkcs8DERRepresentation: SecureBytes {
        get throws {
            guard let info = EVP_PKEY2PKCS8(backing.pointer) else {
                throw TVECryptoError.openSSLFailure(reason: "EVP_PKEY2PKCS8 failed")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            let length = i2d_PKCS8_PRIV_KEY_INFO(info, nil)
            guard length > 0 else { throw TVECryptoError.openSSLFailure(reason: "i2d_PKCS8_PRIV_KEY_INFO failed") }
            var written: Int32 = 0
            let der = SecureBytes(capacity: Int(length)) { buffer in
                var cursor = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                written = i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)
                return Int(written)
            }
            guard written == length else { throw TVECryptoError.openSSLFailure(reason: "i2d_PKCS8_PRIV_KEY_INFO failed") }
            return der
        }
    }

    /// The unencrypted PKCS#8 PEM encoding (`-----BEGIN PRIVATE KEY-----`), in a buffer that is wiped when released.
    /// The Base64 is written straight into that buffer, so no unwiped copy of the key is left behind.
    public var pkcs8PEMRepresentation: SecureBytes {
        get throws {
            let body = Base64Codec.encodeSecure(try pkcs8DERRepresentation, lineLength: 64)
            let header = Array("-----BEGIN PRIVATE KEY-----\n".utf8)
            let footer = Array("\n-----END PRIVATE KEY-----\n".utf8)
            return SecureBytes(capacity: header.count + body.count + footer.count) { buffer in
                buffer.copyBytes(from: header)
                body.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[header.count...]).copyMemory(from: $0) }
                UnsafeMutableRawBufferPointer(rebasing: buffer[(header.count + body.count)...]).copyBytes(from: footer)
                return buffer.count
            }
        }
    }

    public var description: String { "RSAPrivateKey(\(keySizeInBits) bits, public sha256 \(publicKey.sha256Fingerprint.prefix(16)))" }

    // MARK: Signatures

    /// Signs `message` (RSASSA-PKCS1-v1_5, deterministic).
    /// - Returns: the signature, exactly as long as the modulus.
    /// - Throws: ``TVECryptoError/Code/signingFailed``.
    public func signature(for message: some DataProtocol, padding: RSASignaturePadding = .pkcs1v15SHA256) throws -> [UInt8] {
        let hash = padding.hash
        var digest = [UInt8](repeating: 0, count: hash.digestByteCount)
        var signature = [UInt8](repeating: 0, count: backing.byteCount)
        var length = signature.count
        let ok = try message.withContiguousBytes { input in
            try backing.withContext(for: .sign(hash)) { context in
                let hashed = digest.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress.map { context.hash(input, with: hash, into: $0) } ?? false
                }
                guard hashed else {
                    return false
                }
                return signature.withUnsafeMutableBufferPointer {
                    EVP_PKEY_sign(context.pointer, $0.baseAddress, &length, digest, digest.count) == 1
                }
            }
        }
        guard ok, length == backing.byteCount else { throw TVECryptoError.signingFailed(reason: "RSA signing failed") }
        return signature
    }

    // MARK: Decryption

    /// Decrypts one RSA block.
    ///
    /// Every failure (wrong length, bad padding, wrong key, wrong OAEP label) throws the same
    /// ``TVECryptoError/Code/decryptionFailed`` error with the same message and no OpenSSL detail, so the error
    /// cannot serve as a padding oracle. For PKCS#1 v1.5, OpenSSL's implicit rejection (3.2 and later) is
    /// turned off, so a wrong key is an error and never a random plaintext.
    /// - Returns: the plaintext, in a buffer that is wiped when released.
    public func decrypt(_ ciphertext: some DataProtocol, padding: RSAEncryptionPadding) throws -> SecureBytes {
        guard ciphertext.count == backing.byteCount else { throw TVECryptoError.decryptionFailed() }
        var ok = false
        let plaintext: SecureBytes
        do {
            plaintext = try ciphertext.withContiguousBytes { input in
                try backing.withContext(for: padding.operation(decrypt: true), label: padding.label) { context in
                    SecureBytes(capacity: backing.byteCount) { output in
                        var length = output.count
                        guard
                            EVP_PKEY_decrypt(
                                context.pointer, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                                input.bytePointer, input.count) == 1
                        else { return 0 }
                        ok = true
                        return length
                    }
                }
            }
        } catch {
            throw TVECryptoError.decryptionFailed()
        }
        guard ok else { throw TVECryptoError.decryptionFailed() }
        return plaintext
    }

    /// Decrypts concatenated RSAES-PKCS1-v1_5 blocks, each exactly the modulus size, and joins the plaintexts
    /// (the "RSA blocks" encoding of Adobe Pass user metadata, FORMATS.md §2).
    /// - Throws: ``TVECryptoError/Code/decryptionFailed`` when the length is not a non-zero multiple of the
    ///   modulus size or any block fails; ``TVECryptoError/Code/inputTooLarge`` over
    ///   ``maximumBlockCiphertextBytes``.
    public func decryptPKCS1v15Blocks(_ ciphertext: some DataProtocol) throws -> SecureBytes {
        guard ciphertext.count <= Self.maximumBlockCiphertextBytes else {
            throw TVECryptoError.inputTooLarge(reason: "the ciphertext is over \(Self.maximumBlockCiphertextBytes) bytes")
        }
        let size = backing.byteCount
        guard !ciphertext.isEmpty, ciphertext.count % size == 0 else { throw TVECryptoError.decryptionFailed() }
        let blocks = try ciphertext.withContiguousBytes { bytes in
            try stride(from: 0, to: bytes.count, by: size).map { start in
                try decrypt(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]), padding: ._weakAndInsecurePKCS1v15)
            }
        }
        let total = blocks.reduce(0) { $0 + $1.count }
        return SecureBytes(capacity: total) { buffer in
            var offset = 0
            for block in blocks {
                block.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: $0) }
                offset += block.count
            }
            return offset
        }
    }
}
