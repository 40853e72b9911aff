import Foundation
import TVECrypto

/// The signed requestor ID of the pre-DCR native SDKs (FORMATS.md §3):
/// `Base64(RSASSA-PKCS1-v1_5-SHA256(private key, UTF-8 bytes of the requestor ID))`.
///
/// The key is the programmer's PKCS#12 key (the one that also decrypts user metadata). Adobe's Android sample
/// signed on the device and warned that production apps should ask a trusted server to sign: keep the key on a
/// server. Output is unwrapped Base64 by default, or 76-column lines joined by `\n` (what Android's
/// `Base64.DEFAULT` produced); verification skips spaces, CR and LF.
public enum SignedRequestorID {
    /// The longest requestor ID accepted (requestor IDs are short identifiers such as `nbcentertainment`).
    public static let maximumRequestorIDBytes = 4096

    /// Signs `requestorID`.
    /// - Parameters:
    ///   - requestorID: the requestor ID to sign, at most ``maximumRequestorIDBytes`` bytes.
    ///   - key: the requestor's private key.
    ///   - wrapped: wrap the Base64 at 76 columns.
    /// - Throws: ``MediaTokenError/Code/malformedSignature`` for an empty or oversized ID,
    ///   ``MediaTokenError/Code/signingFailed`` when the key cannot sign.
    public static func sign(_ requestorID: String, with key: RSAPrivateKey, wrapped: Bool = false) throws -> String {
        try check(requestorID)
        do {
            let signature = try key.signature(for: Array(requestorID.utf8), padding: .pkcs1v15SHA256)
            return Base64.encode(signature, lineLength: wrapped ? 76 : nil)
        } catch let error as TVECryptoError {
            throw MediaTokenError.signingFailed(reason: "signing the requestor ID failed: \(error.reason)")
        }
    }

    /// Signs with the private key of a PKCS#12 file.
    public static func sign(_ requestorID: String, with bundle: PKCS12Bundle, wrapped: Bool = false) throws -> String {
        try sign(requestorID, with: bundle.privateKey, wrapped: wrapped)
    }

    /// Whether `signature` (Base64, whitespace allowed) is a valid signature of `requestorID` by `publicKey`.
    /// - Throws: ``MediaTokenError/Code/malformedSignature`` when the text is not Base64 or the ID is empty or
    ///   oversized; a well-formed signature that does not verify returns `false`.
    public static func isValid(_ signature: String, for requestorID: String, publicKey: RSAPublicKey) throws -> Bool {
        try check(requestorID)
        guard signature.utf8.count <= 64 * 1024 else {
            throw MediaTokenError.malformedSignature(reason: "the signature text is over 64 KiB")
        }
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(signature, options: .ignoringWhitespace)
        } catch let error as TVECryptoError {
            throw MediaTokenError.malformedSignature(reason: "the signature is not Base64 (\(error.reason))")
        }
        return publicKey.isValidSignature(bytes, for: Array(requestorID.utf8), padding: .pkcs1v15SHA256)
    }

    /// Verifies with the key of `certificate` (its validity dates are not checked: trust is configuration).
    public static func isValid(_ signature: String, for requestorID: String, certificate: X509Certificate) throws -> Bool {
        let key: RSAPublicKey
        do {
            key = try RSAPublicKey(certificate: certificate)
        } catch let error as TVECryptoError {
            throw MediaTokenError.invalidConfiguration(reason: "the certificate's key is unusable: \(error.reason)")
        }
        return try isValid(signature, for: requestorID, publicKey: key)
    }

    private static func check(_ requestorID: String) throws {
        guard !requestorID.isEmpty else { throw MediaTokenError.malformedSignature(reason: "the requestor ID is empty") }
        guard requestorID.utf8.count <= maximumRequestorIDBytes else {
            throw MediaTokenError.malformedSignature(reason: "the requestor ID is over \(maximumRequestorIDBytes) bytes")
        }
    }
}
