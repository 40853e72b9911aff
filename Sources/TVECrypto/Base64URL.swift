import Foundation

/// Base64url without padding (RFC 4648 §5, as JOSE uses it, RFC 7515 §2).
///
/// Decoding is strict: only the URL-safe alphabet, no `=`, no whitespace, canonical trailing bits.
public enum Base64URL {
    /// Encodes `bytes` as unpadded Base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Base64Codec.encode(bytes, alphabet: Base64Codec.urlAlphabet, padding: false, lineLength: nil)
    }

    /// Decodes unpadded Base64url.
    /// - Throws: ``TVECryptoError/Code/invalidBase64``.
    public static func decode(_ text: some StringProtocol) throws -> [UInt8] {
        try Base64Codec.decode(Array(text.utf8), url: true, ignoringWhitespace: false)
    }
}
