import Foundation
import TVECrypto

/// Decrypts encrypted user metadata with the programmer's private key (FORMATS.md §2).
///
/// Each encrypted value is detected as one of two encodings:
/// - **RSA blocks**: standard Base64 (line breaks and spaces skipped) of RSAES-PKCS1-v1_5 blocks, each exactly the
///   modulus size, decrypted one by one and joined;
/// - **JWE compact serialization** (five Base64url parts): see ``JWE`` for the accepted algorithms.
///
/// The plaintext is the UTF-8 JSON text of the value; a plaintext that is not JSON becomes a string value
/// (**choice**: `hello` decrypts to the string `"hello"`). Plaintexts are held in wiped buffers and parsed in place.
///
/// - Warning: RSAES-PKCS1-v1_5 (the RSA-blocks encoding and JWE `RSA1_5`) is open to Bleichenbacher's attack and its
///   timing variant (Marvin, 2023): an attacker who can submit chosen ciphertexts and learn, by any channel (an error,
///   a status code, a log line, the time taken), whether they decrypted can eventually decrypt any value or forge a
///   signature with the key. Decrypt only documents that came from Adobe's service over TLS, never ciphertexts
///   a user or a third party can hand you, and do not expose this decryptor behind an API. TVEKit reports every
///   failure with one error and message and turns off OpenSSL's implicit rejection, so a wrong key is an error and
///   never garbage, but it cannot make PKCS#1 v1.5 constant time. JWE `RSA1_5` is refused unless
///   ``Options/allowsRSA1_5`` is set.
public struct MetadataDecryptor: Sendable {
    /// What the decryptor accepts.
    public struct Options: Sendable, Hashable {
        /// Accept JWE values whose `alg` is `RSA1_5`. Off by default.
        public var allowsRSA1_5: Bool

        /// Creates options; JWE `RSA1_5` is refused unless `allowsRSA1_5` is `true`.
        public init(allowsRSA1_5: Bool = false) {
            self.allowsRSA1_5 = allowsRSA1_5
        }
    }

    /// The encoding of one encrypted value.
    public enum Encoding: String, Sendable, Hashable {
        /// `rsaBlocks`: standard Base64 of RSAES-PKCS1-v1_5 blocks; `jwe`: a JWE compact serialization (five
        /// Base64url parts).
        case rsaBlocks, jwe
    }

    /// The programmer's RSA private key, which decrypts every value.
    public let privateKey: RSAPrivateKey
    /// What this decryptor accepts.
    public let options: Options

    /// A decryptor with the programmer's private key (the one that signs the requestor ID); `RSA1_5` is refused by
    /// default.
    public init(privateKey: RSAPrivateKey, options: Options = Options()) {
        self.privateKey = privateKey
        self.options = options
    }

    /// A decryptor with the private key of a PKCS#12 file (the same file that signs the requestor ID).
    public init(pkcs12: PKCS12Bundle, options: Options = Options()) {
        self.init(privateKey: pkcs12.privateKey, options: options)
    }

    /// Reads and decrypts a document (REST v1 or v2 shape).
    /// - Throws: ``MetadataError``; a failing value names its key in ``MetadataError/key``.
    public func decrypt(jsonText: some DataProtocol) throws -> UserMetadata {
        try decrypt(UserMetadataDocument(jsonText: jsonText))
    }

    /// Decrypts every encrypted value of `document`; plain values are copied as they are.
    public func decrypt(_ document: UserMetadataDocument) throws -> UserMetadata {
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(document.entries.count)
        var decrypted: [String] = []
        // Sorted, so that the key an error names does not depend on hashing order.
        for (key, entry) in document.entries.sorted(by: { $0.key < $1.key }) {
            switch entry {
            case .plain(let value):
                values[key] = value
            case .encrypted(let text):
                do {
                    values[key] = try decryptValue(text)
                } catch let error as MetadataError {
                    throw error.about(key: key)
                }
                decrypted.append(key)
            }
        }
        return UserMetadata(updated: document.updated, values: values, decryptedKeys: decrypted.sorted())
    }

    /// Decrypts one encrypted value and parses its plaintext.
    public func decryptValue(_ ciphertext: String) throws -> JSONValue {
        let plaintext = try decryptValueBytes(ciphertext)
        return try plaintext.withUnsafeBytes { bytes in
            if let value = try? JSONValue.parse(bytes) { return value }
            // Not JSON: the value is the text itself; text that is not UTF-8 is a decryption failure, so that no
            // second error tells a valid padding from an invalid one.
            guard let text = String(validating: bytes, as: UTF8.self) else { throw MetadataError.decryptionFailed() }
            return .string(text)
        }
    }

    /// Decrypts one encrypted value to its plaintext bytes, in a buffer that is wiped when released.
    public func decryptValueBytes(_ ciphertext: String) throws -> SecureBytes {
        guard ciphertext.utf8.count <= UserMetadataDocument.maximumCiphertextBytes else {
            throw MetadataError.inputTooLarge(
                reason: "the encrypted value is \(ciphertext.utf8.count) bytes; the limit is \(UserMetadataDocument.maximumCiphertextBytes)"
            )
        }
        switch Self.encoding(of: ciphertext) {
        case .jwe:
            return try JWE.decrypt(JWE.parse(ciphertext), with: privateKey, allowingRSA1_5: options.allowsRSA1_5)
        case .rsaBlocks:
            let blocks: [UInt8]
            do {
                blocks = try Base64.decode(ciphertext, options: .ignoringWhitespace)
            } catch let error as TVECryptoError {
                throw MetadataError.malformedCiphertext(reason: "the value is neither a JWE nor Base64 RSA blocks (\(error.reason))")
            }
            let size = privateKey.publicKey.modulusByteCount
            guard !blocks.isEmpty, blocks.count % size == 0 else {
                throw MetadataError.malformedCiphertext(
                    reason: "the value is \(blocks.count) bytes, not a whole number of \(size)-byte RSA blocks")
            }
            do {
                return try privateKey.decryptPKCS1v15Blocks(blocks)
            } catch {
                throw MetadataError.decryptionFailed()
            }
        }
    }

    /// Which encoding `ciphertext` is in: a JWE when it has five dot-separated parts, RSA blocks otherwise.
    public static func encoding(of ciphertext: String) -> Encoding {
        JWE.looksLikeCompact(ciphertext) ? .jwe : .rsaBlocks
    }
}

extension MetadataEncryptor {
    /// Encrypts a plain REST v1 document: `{"updated": n, "encrypted": [keys], "data": {...}}` with clear values.
    /// The keys listed in `encrypted` are encrypted (every key when `encrypted` is absent); `updated` defaults to 0.
    /// - Throws: ``MetadataError/Code/malformedDocument``, ``MetadataError/Code/inputTooLarge``,
    ///   ``MetadataError/Code/encryptionFailed``.
    public func encryptDocument(plainJSONText text: some DataProtocol) throws -> UserMetadataDocument {
        guard text.count <= UserMetadataDocument.maximumDocumentBytes else {
            throw MetadataError.inputTooLarge(
                reason: "the document is \(text.count) bytes; the limit is \(UserMetadataDocument.maximumDocumentBytes)")
        }
        guard case .object(let root)? = JSONValue(jsonText: text), case .object(let data)? = root["data"] else {
            throw MetadataError.malformedDocument(reason: "the document is not a JSON object with a \"data\" object")
        }
        let updated: Int64
        switch root["updated"] {
        case nil: updated = 0
        case .integer(let value)?: updated = value
        default: throw MetadataError.malformedDocument(reason: "\"updated\" is not an integer")
        }
        var keys = Set(data.keys)
        if let listed = root["encrypted"] {
            guard case .array(let list) = listed, list.allSatisfy({ $0.stringValue != nil }) else {
                throw MetadataError.malformedDocument(reason: "\"encrypted\" is not an array of key names")
            }
            keys = Set(list.compactMap(\.stringValue))
            if let missing = keys.first(where: { data[$0] == nil }) {
                throw MetadataError.malformedDocument(
                    reason: "\"encrypted\" lists \"\(UserMetadataDocument.printable(missing))\", which \"data\" lacks")
            }
        }
        return try encryptDocument(UserMetadata(updated: updated, values: data), encrypting: keys)
    }
}
