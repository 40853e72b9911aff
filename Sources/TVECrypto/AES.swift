internal import COpenSSL
import Foundation

/// AES (FIPS 197) in the two modes JSON Web Encryption needs (RFC 7518 §5.2 and §5.3).
public enum AES {
    /// Checks an AES key length and picks the cipher for it.
    fileprivate static func cipher(keyCount: Int, cbc: Bool) throws -> OpaquePointer {
        let fetched = FetchedAlgorithms.shared
        switch keyCount {
        case 16: return cbc ? fetched.aes128CBC : fetched.aes128GCM
        case 24: return cbc ? fetched.aes192CBC : fetched.aes192GCM
        case 32: return cbc ? fetched.aes256CBC : fetched.aes256GCM
        default: throw TVECryptoError.invalidParameter(reason: "AES key is \(keyCount) bytes; it must be 16, 24 or 32")
        }
    }

    /// The largest input of one AES call, 64 MiB.
    public static let maximumInputCount = 64 << 20

    /// Owns an `EVP_CIPHER_CTX` for the length of one call.
    fileprivate final class ContextBox {
        let pointer: OpaquePointer
        init() throws {
            guard let pointer = EVP_CIPHER_CTX_new() else { throw TVECryptoError.openSSLFailure(reason: "EVP_CIPHER_CTX_new failed") }
            self.pointer = pointer
        }
        deinit { EVP_CIPHER_CTX_free(pointer) }  // also wipes the key schedule
    }

    /// AES in CBC mode with PKCS#7 padding.
    public enum CBC {
        /// Encrypts `plaintext` under `key` with the 16-byte `iv`.
        /// - Throws: ``TVECryptoError/Code/invalidParameter`` for a bad key or IV length.
        public static func encrypt(_ plaintext: some DataProtocol, key: some DataProtocol, iv: some DataProtocol) throws -> [UInt8] {
            guard plaintext.count <= maximumInputCount else {
                throw TVECryptoError.inputTooLarge(reason: "AES-CBC input over \(maximumInputCount) bytes")
            }
            guard iv.count == 16 else { throw TVECryptoError.invalidParameter(reason: "AES-CBC IV is \(iv.count) bytes; it must be 16") }
            let evpCipher = try AES.cipher(keyCount: key.count, cbc: true)
            let context = try ContextBox()
            var output = [UInt8](repeating: 0, count: plaintext.count + 16)
            var total = 0
            let ok = key.withContiguousBytes { keyBytes in
                iv.withContiguousBytes { ivBytes in
                    plaintext.withContiguousBytes { input in
                        output.withUnsafeMutableBufferPointer { out -> Bool in
                            guard EVP_EncryptInit_ex2(context.pointer, evpCipher, keyBytes.bytePointer, ivBytes.bytePointer, nil) == 1
                            else { return false }
                            var written: Int32 = 0
                            guard EVP_EncryptUpdate(context.pointer, out.baseAddress, &written, input.bytePointer, Int32(input.count)) == 1
                            else { return false }
                            total = Int(written)
                            guard EVP_EncryptFinal_ex(context.pointer, out.baseAddress.map { $0 + total }, &written) == 1 else {
                                return false
                            }
                            total += Int(written)
                            return true
                        }
                    }
                }
            }
            guard ok else { throw TVECryptoError.encryptionFailed(reason: "AES-CBC encryption failed") }
            output.removeSubrange(total...)
            return output
        }

        /// Decrypts `ciphertext` under `key` with the 16-byte `iv` and removes the PKCS#7 padding.
        ///
        /// - Warning: unauthenticated CBC is malleable and a padding oracle if its failures can be told apart.
        ///   Authenticate before decrypting (JWE `A128CBC-HS256` checks the HMAC first). Every padding failure
        ///   here is the one ``TVECryptoError/Code/decryptionFailed`` error.
        /// - Throws: ``TVECryptoError/Code/invalidParameter`` for a bad key or IV length,
        ///   ``TVECryptoError/Code/decryptionFailed`` for a ciphertext that does not decrypt.
        public static func decrypt(_ ciphertext: some DataProtocol, key: some DataProtocol, iv: some DataProtocol) throws -> SecureBytes {
            guard ciphertext.count <= maximumInputCount else {
                throw TVECryptoError.inputTooLarge(reason: "AES-CBC input over \(maximumInputCount) bytes")
            }
            guard iv.count == 16 else { throw TVECryptoError.invalidParameter(reason: "AES-CBC IV is \(iv.count) bytes; it must be 16") }
            let evpCipher = try AES.cipher(keyCount: key.count, cbc: true)
            guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw TVECryptoError.decryptionFailed() }
            let context = try ContextBox()
            var ok = false
            let plaintext = key.withContiguousBytes { keyBytes in
                iv.withContiguousBytes { ivBytes in
                    ciphertext.withContiguousBytes { input in
                        SecureBytes(capacity: input.count + 16) { out -> Int in
                            let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                            guard EVP_DecryptInit_ex2(context.pointer, evpCipher, keyBytes.bytePointer, ivBytes.bytePointer, nil) == 1
                            else { return 0 }
                            var written: Int32 = 0
                            guard EVP_DecryptUpdate(context.pointer, base, &written, input.bytePointer, Int32(input.count)) == 1 else {
                                return 0
                            }
                            let first = Int(written)
                            guard EVP_DecryptFinal_ex(context.pointer, base.map { $0 + first }, &written) == 1 else { return 0 }
                            ok = true
                            return first + Int(written)
                        }
                    }
                }
            }
            guard ok else { throw TVECryptoError.decryptionFailed() }
            return plaintext
        }
    }

    /// AES in Galois/Counter Mode (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag.
    public enum GCM {
        /// The result of ``seal(_:key:nonce:authenticating:)``.
        public struct SealedBox: Hashable, Sendable {
            /// The ciphertext, as long as the plaintext.
            public var ciphertext: [UInt8]
            /// The 16-byte authentication tag.
            public var tag: [UInt8]
            /// A box from a ciphertext and its tag as received. Nothing is checked here: ``AES/GCM/open(_:key:nonce:authenticating:)``
            /// refuses a tag that is not 16 bytes with ``TVECryptoError/Code/authenticationFailed``.
            public init(ciphertext: [UInt8], tag: [UInt8]) {
                self.ciphertext = ciphertext
                self.tag = tag
            }
        }

        /// Encrypts and authenticates `plaintext`, and authenticates `authenticatedData`.
        /// - Parameters:
        ///   - plaintext: the bytes to encrypt.
        ///   - key: 16, 24 or 32 bytes (AES-128, AES-192 or AES-256).
        ///   - nonce: 12 bytes, never reused with the same key.
        ///   - authenticatedData: bytes authenticated but not encrypted (empty by default).
        /// - Throws: ``TVECryptoError/Code/invalidParameter`` for a bad key or nonce length.
        public static func seal(
            _ plaintext: some DataProtocol, key: some DataProtocol, nonce: some DataProtocol,
            authenticating authenticatedData: some DataProtocol = [UInt8]()
        ) throws -> SealedBox {
            guard plaintext.count <= maximumInputCount, authenticatedData.count <= maximumInputCount else {
                throw TVECryptoError.inputTooLarge(reason: "AES-GCM input over \(maximumInputCount) bytes")
            }
            guard nonce.count == 12 else {
                throw TVECryptoError.invalidParameter(reason: "AES-GCM nonce is \(nonce.count) bytes; it must be 12")
            }
            let evpCipher = try AES.cipher(keyCount: key.count, cbc: false)
            let context = try ContextBox()
            var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
            var tag = [UInt8](repeating: 0, count: 16)
            let ok = key.withContiguousBytes { keyBytes in
                nonce.withContiguousBytes { nonceBytes in
                    authenticatedData.withContiguousBytes { aad in
                        plaintext.withContiguousBytes { input in
                            ciphertext.withUnsafeMutableBufferPointer { out -> Bool in
                                var written: Int32 = 0
                                guard
                                    EVP_EncryptInit_ex2(context.pointer, evpCipher, keyBytes.bytePointer, nonceBytes.bytePointer, nil) == 1
                                else { return false }
                                if aad.count > 0 {
                                    guard EVP_EncryptUpdate(context.pointer, nil, &written, aad.bytePointer, Int32(aad.count)) == 1 else {
                                        return false
                                    }
                                }
                                var total = 0
                                if input.count > 0 {
                                    guard
                                        EVP_EncryptUpdate(context.pointer, out.baseAddress, &written, input.bytePointer, Int32(input.count))
                                            == 1
                                    else { return false }
                                    total = Int(written)
                                }
                                var scratch = [UInt8](repeating: 0, count: 16)
                                guard EVP_EncryptFinal_ex(context.pointer, &scratch, &written) == 1, total + Int(written) == input.count
                                else { return false }
                                return tag.withUnsafeMutableBytes {
                                    EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_GET_TAG, 16, $0.baseAddress) == 1
                                }
                            }
                        }
                    }
                }
            }
            guard ok else { throw TVECryptoError.encryptionFailed(reason: "AES-GCM encryption failed") }
            return SealedBox(ciphertext: ciphertext, tag: tag)
        }

        /// Checks the tag and decrypts. Nothing is returned unless the tag verifies.
        /// - Throws: ``TVECryptoError/Code/authenticationFailed`` when the tag, ciphertext, nonce or authenticated
        ///   data were changed or the key is wrong; ``TVECryptoError/Code/invalidParameter`` for bad lengths.
        public static func open(
            _ box: SealedBox, key: some DataProtocol, nonce: some DataProtocol,
            authenticating authenticatedData: some DataProtocol = [UInt8]()
        ) throws -> SecureBytes {
            guard box.ciphertext.count <= maximumInputCount, authenticatedData.count <= maximumInputCount else {
                throw TVECryptoError.inputTooLarge(reason: "AES-GCM input over \(maximumInputCount) bytes")
            }
            guard nonce.count == 12 else {
                throw TVECryptoError.invalidParameter(reason: "AES-GCM nonce is \(nonce.count) bytes; it must be 12")
            }
            guard box.tag.count == 16 else {
                throw TVECryptoError.authenticationFailed(reason: "AES-GCM tag is \(box.tag.count) bytes; it must be 16")
            }
            let evpCipher = try AES.cipher(keyCount: key.count, cbc: false)
            let context = try ContextBox()
            var ok = false
            var tag = box.tag
            let plaintext = key.withContiguousBytes { keyBytes in
                nonce.withContiguousBytes { nonceBytes in
                    authenticatedData.withContiguousBytes { aad in
                        box.ciphertext.withUnsafeBytes { input in
                            SecureBytes(capacity: input.count) { out -> Int in
                                let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                                var written: Int32 = 0
                                guard
                                    EVP_DecryptInit_ex2(context.pointer, evpCipher, keyBytes.bytePointer, nonceBytes.bytePointer, nil) == 1
                                else { return 0 }
                                if aad.count > 0 {
                                    guard EVP_DecryptUpdate(context.pointer, nil, &written, aad.bytePointer, Int32(aad.count)) == 1 else {
                                        return 0
                                    }
                                }
                                if input.count > 0 {
                                    guard EVP_DecryptUpdate(context.pointer, base, &written, input.bytePointer, Int32(input.count)) == 1
                                    else { return 0 }
                                }
                                let setTag = tag.withUnsafeMutableBytes {
                                    EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_TAG, 16, $0.baseAddress) == 1
                                }
                                guard setTag else { return 0 }
                                var scratch = [UInt8](repeating: 0, count: 16)
                                guard EVP_DecryptFinal_ex(context.pointer, &scratch, &written) == 1 else { return 0 }
                                ok = true
                                return input.count
                            }
                        }
                    }
                }
            }
            guard ok else { throw TVECryptoError.authenticationFailed() }
            return plaintext
        }
    }
}
