import Foundation
import TVECrypto

/// JWE compact serialization (RFC 7516 §7.1) with RSA key transport, as some Adobe Pass sources describe
/// encrypted user metadata (FORMATS.md §2).
///
/// Accepted: `alg` `RSA-OAEP` (SHA-1, MGF1-SHA-1), `RSA-OAEP-256` (SHA-256, MGF1-SHA-256) and, only when the caller
/// opts in, `RSA1_5`; `enc` `A128CBC-HS256`, `A256CBC-HS512` (RFC 7518 §5.2), `A128GCM`, `A256GCM`. Refused:
/// `none`, `dir`, key wrapping and key agreement, any other `enc`, the `zip` (compression) header and any `crit`
/// header (TVEKit understands no extension).
public enum JWE {
    /// A key-transport algorithm (`alg`).
    public enum KeyAlgorithm: String, Sendable, Hashable, CaseIterable {
        /// RSAES-OAEP with SHA-1 and MGF1-SHA-1.
        case rsaOAEP = "RSA-OAEP"
        /// RSAES-OAEP with SHA-256 and MGF1-SHA-256.
        case rsaOAEP256 = "RSA-OAEP-256"
        /// RSAES-PKCS1-v1_5: open to Bleichenbacher's attack; decrypted only with
        /// ``MetadataDecryptor/Options/allowsRSA1_5``.
        case rsa1_5 = "RSA1_5"

        var padding: RSAEncryptionPadding {
            switch self {
            case .rsaOAEP: .oaepSHA1
            case .rsaOAEP256: .oaepSHA256
            case .rsa1_5: ._weakAndInsecurePKCS1v15
            }
        }
    }

    /// A content-encryption algorithm (`enc`).
    public enum ContentAlgorithm: String, Sendable, Hashable, CaseIterable {
        /// AES-128-CBC with HMAC-SHA-256 (RFC 7518 §5.2.3): a 32-byte key, a 16-byte IV and a 16-byte tag.
        case a128CBCHS256 = "A128CBC-HS256"
        /// AES-256-CBC with HMAC-SHA-512 (RFC 7518 §5.2.5): a 64-byte key, a 16-byte IV and a 32-byte tag.
        case a256CBCHS512 = "A256CBC-HS512"
        /// AES-128-GCM: a 16-byte key, a 12-byte IV and a 16-byte tag.
        case a128GCM = "A128GCM"
        /// AES-256-GCM: a 32-byte key, a 12-byte IV and a 16-byte tag.
        case a256GCM = "A256GCM"

        /// The content-encryption key length in bytes.
        var keyCount: Int {
            switch self {
            case .a128CBCHS256: 32
            case .a256CBCHS512: 64
            case .a128GCM: 16
            case .a256GCM: 32
            }
        }
        var ivCount: Int { isGCM ? 12 : 16 }
        var tagCount: Int {
            switch self {
            case .a128CBCHS256, .a128GCM, .a256GCM: 16
            case .a256CBCHS512: 32
            }
        }
        var isGCM: Bool { self == .a128GCM || self == .a256GCM }
        var macHash: HashFunction { self == .a256CBCHS512 ? .sha512 : .sha256 }
    }

    /// The parsed, not yet decrypted, parts of a compact JWE.
    struct Compact {
        let keyAlgorithm: KeyAlgorithm
        let contentAlgorithm: ContentAlgorithm
        /// The ASCII of the first part: the additional authenticated data.
        let protectedHeaderText: [UInt8]
        let encryptedKey: [UInt8]
        let iv: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]
    }

    /// Whether `text` has the shape of a compact JWE (five dot-separated parts), without checking them.
    static func looksLikeCompact(_ text: String) -> Bool {
        text.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count == 4
    }

    static let maximumHeaderBytes = 4096

    /// Parses the five parts and the protected header; checks algorithms and lengths.
    static func parse(_ text: String) throws -> Compact {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5 else {
            throw MetadataError.malformedCiphertext(reason: "a compact JWE has 5 parts; this one has \(parts.count)")
        }
        func decode(_ index: Int, _ name: String) throws -> [UInt8] {
            do {
                return try Base64URL.decode(Substring(parts[index]))
            } catch {
                throw MetadataError.malformedCiphertext(reason: "the JWE \(name) is not Base64url")
            }
        }
        guard parts[0].count <= maximumHeaderBytes * 4 / 3 + 4 else {
            throw MetadataError.malformedCiphertext(reason: "the JWE protected header is over \(maximumHeaderBytes) bytes")
        }
        let headerBytes = try decode(0, "protected header")
        guard case .object(let header)? = JSONValue(jsonText: headerBytes) else {
            throw MetadataError.malformedCiphertext(reason: "the JWE protected header is not a JSON object")
        }
        guard case .string(let alg)? = header["alg"], case .string(let enc)? = header["enc"] else {
            throw MetadataError.malformedCiphertext(reason: "the JWE protected header lacks \"alg\" or \"enc\"")
        }
        guard let keyAlgorithm = KeyAlgorithm(rawValue: alg) else {
            throw MetadataError.unsupportedAlgorithm(
                reason: "JWE alg \"\(UserMetadataDocument.printable(alg))\" is not accepted (RSA-OAEP, RSA-OAEP-256, opt-in RSA1_5)")
        }
        guard let contentAlgorithm = ContentAlgorithm(rawValue: enc) else {
            throw MetadataError.unsupportedAlgorithm(
                reason:
                    "JWE enc \"\(UserMetadataDocument.printable(enc))\" is not accepted (A128CBC-HS256, A256CBC-HS512, A128GCM, A256GCM)")
        }
        if header["zip"] != nil {
            throw MetadataError.unsupportedAlgorithm(reason: "compressed JWE (\"zip\") is not accepted")
        }
        if header["crit"] != nil {
            throw MetadataError.unsupportedAlgorithm(
                reason: "the JWE names critical extensions (\"crit\"), which TVEKit does not implement")
        }
        let encryptedKey = try decode(1, "encrypted key")
        let iv = try decode(2, "initialization vector")
        let ciphertext = try decode(3, "ciphertext")
        let tag = try decode(4, "authentication tag")
        guard !encryptedKey.isEmpty else { throw MetadataError.malformedCiphertext(reason: "the JWE encrypted key is empty") }
        guard iv.count == contentAlgorithm.ivCount else {
            throw MetadataError.malformedCiphertext(reason: "the JWE IV is \(iv.count) bytes; \(enc) takes \(contentAlgorithm.ivCount)")
        }
        guard tag.count == contentAlgorithm.tagCount else {
            throw MetadataError.malformedCiphertext(reason: "the JWE tag is \(tag.count) bytes; \(enc) takes \(contentAlgorithm.tagCount)")
        }
        return Compact(
            keyAlgorithm: keyAlgorithm, contentAlgorithm: contentAlgorithm, protectedHeaderText: Array(parts[0]),
            encryptedKey: encryptedKey, iv: iv, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts a parsed JWE. Every failure after the structural checks is ``MetadataError/decryptionFailed()``.
    ///
    /// When the key transport fails (or yields a key of the wrong length) decryption goes on with a random key
    /// and fails at the tag, as RFC 7516 §11.5 advises, so the time taken does not tell a padding failure from a
    /// tag failure.
    static func decrypt(_ jwe: Compact, with key: RSAPrivateKey, allowingRSA1_5: Bool) throws -> SecureBytes {
        if jwe.keyAlgorithm == .rsa1_5, !allowingRSA1_5 {
            throw MetadataError.unsupportedAlgorithm(
                reason: "JWE alg RSA1_5 is refused unless the decryptor allows it (Bleichenbacher's attack)")
        }
        let enc = jwe.contentAlgorithm
        // The substitute key is drawn before the key transport runs, so both outcomes cost the same work; without
        // randomness there is no safe substitute, and decryption stops with the same one error.
        guard let substitute = try? SecureRandom.secureBytes(count: enc.keyCount) else { throw MetadataError.decryptionFailed() }
        let transported = try? key.decrypt(jwe.encryptedKey, padding: jwe.keyAlgorithm.padding)
        let contentKey = transported.flatMap { $0.count == enc.keyCount ? $0 : nil } ?? substitute
        do {
            if enc.isGCM {
                return try AES.GCM.open(
                    AES.GCM.SealedBox(ciphertext: jwe.ciphertext, tag: jwe.tag), key: contentKey,
                    nonce: jwe.iv, authenticating: jwe.protectedHeaderText)
            }
            let half = enc.keyCount / 2
            let macKey = SecureBytes(contentKey.prefix(half))
            let encryptionKey = SecureBytes(contentKey.suffix(half))
            let expected = try cbcTag(macKey: macKey, enc: enc, aad: jwe.protectedHeaderText, iv: jwe.iv, ciphertext: jwe.ciphertext)
            guard ConstantTime.equals(expected, jwe.tag) else { throw MetadataError.decryptionFailed() }
            return try AES.CBC.decrypt(jwe.ciphertext, key: encryptionKey, iv: jwe.iv)
        } catch {
            throw MetadataError.decryptionFailed()
        }
    }

    /// The AES-CBC-HMAC-SHA2 tag (RFC 7518 §5.2.2.1): the first half of HMAC(MAC key, AAD ‖ IV ‖ C ‖ AL).
    static func cbcTag(macKey: SecureBytes, enc: ContentAlgorithm, aad: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws -> [UInt8] {
        var input = aad
        input.reserveCapacity(aad.count + iv.count + ciphertext.count + 8)
        input += iv
        input += ciphertext
        let bits = UInt64(aad.count) * 8
        input += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> (UInt64($0) * 8)) }
        let mac = try HMAC.authenticationCode(for: input, key: macKey, hash: enc.macHash)
        return Array(mac.prefix(enc.tagCount))
    }

    /// Encrypts `plaintext` to `publicKey` as a compact JWE with a fresh content key and IV.
    public static func encrypt(
        _ plaintext: some DataProtocol, to publicKey: RSAPublicKey, keyAlgorithm: KeyAlgorithm,
        contentAlgorithm: ContentAlgorithm
    ) throws -> String {
        do {
            let header = "{\"alg\":\"\(keyAlgorithm.rawValue)\",\"enc\":\"\(contentAlgorithm.rawValue)\"}"
            let headerText = Array(Base64URL.encode(Array(header.utf8)).utf8)
            let contentKey = try SecureRandom.secureBytes(count: contentAlgorithm.keyCount)
            let iv = try SecureRandom.bytes(count: contentAlgorithm.ivCount)
            let encryptedKey = try publicKey.encrypt(contentKey, padding: keyAlgorithm.padding)
            let ciphertext: [UInt8]
            let tag: [UInt8]
            if contentAlgorithm.isGCM {
                let box = try AES.GCM.seal(plaintext, key: contentKey, nonce: iv, authenticating: headerText)
                ciphertext = box.ciphertext
                tag = box.tag
            } else {
                let half = contentAlgorithm.keyCount / 2
                ciphertext = try AES.CBC.encrypt(plaintext, key: SecureBytes(contentKey.suffix(half)), iv: iv)
                tag = try cbcTag(
                    macKey: SecureBytes(contentKey.prefix(half)), enc: contentAlgorithm, aad: headerText, iv: iv,
                    ciphertext: ciphertext)
            }
            return [
                String(decoding: headerText, as: UTF8.self), Base64URL.encode(encryptedKey), Base64URL.encode(iv),
                Base64URL.encode(ciphertext), Base64URL.encode(tag),
            ].joined(separator: ".")
        } catch let error as TVECryptoError {
            throw MetadataError.encryptionFailed(reason: "JWE encryption failed: \(error.reason)")
        }
    }
}
