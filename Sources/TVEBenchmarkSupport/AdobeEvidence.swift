import Foundation
import TVECrypto

/// A real Adobe media token of 2017 and the RSA-1024 key recovered from real tokens (see FORMATS.md §1), for
/// `token-verify-1024`. Public evidence (the token expired long ago), not a trust anchor.
package enum AdobeEvidence {
    // A real Adobe media token of 2017 and the RSA-1024 key recovered from real tokens; see FORMATS.md §1. Both
    // are public evidence (the token expired long ago), not a trust anchor.
    package static let token =
        "<signatureInfo>Xv1rtBY0MP5/CkaobJcjdkz0/f3gZ9248XqG7hULT5qWA0UZP04AY2efA21VBxBR5r1IWZMNx5doAPmYk9SKnaKdN45T88BdoOO8aeQeet2sEDXSHu+qjBLLYcW6+qNcxU3TT1KzQkqv90vIq6BdlqDEHbI5p/pwwWVX9hAB9+M=<signatureInfo><authToken><sessionGUID>a6c1d2fa9725d7857b6a9d3aa9195040</sessionGUID><requestorID>MML</requestorID><resourceID>truTV</resourceID><ttl>420000</ttl><issueTime>2017-03-15 16:40:46 -0700</issueTime><mvpdId>TWC</mvpdId></authToken>"

    package static let keyPEM = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC30++qBo/WyMfUcB7veNHJiMVX
        t1zouTNtrWfQ81mJm9uSmYJs1booWq05vepNpHYSp3X50xLS8uYe7Ml88sjGppy0
        rZB/Fc5Lq/7aukxw6/lWBzeP0WGUVtwukA7KdyOr1qNHrLNGYjuMs6yLaOB1Gssb
        Z0+y13F/6yQHFCFuwwIDAQAB
        -----END PUBLIC KEY-----
        """

    /// Two seconds after the token's issue time (2017-03-15 16:40:46 -0700); its lifetime is 420 s.
    package static let tokenValidAt: Int64 = 1_489_621_246_000 + 2_000

    /// The bare verify of the Adobe token's signature over its signed bytes (`<authToken>` to the end), with the
    /// same key: cut out of the text directly, so that the baseline does not depend on the token parser.
    package static func baseline() throws -> OpenSSLVerifyBaseline {
        let (signature, message) = try signatureAndSignedBytes()
        let key = try RSAPublicKey(unsafePEMRepresentation: keyPEM)
        return try OpenSSLVerifyBaseline(publicKey: key, signature: signature, message: message)
    }

    /// TVEKit's own bare verification of the same signature: `RSAPublicKey.isValidSignature` of the signed bytes
    /// (SHA-256, then TVEKit's RSA public operation), the baseline of `token-verify-1024-glue`.
    package static func tvekitBaseline() throws -> @Sendable () -> Bool {
        let (signature, message) = try signatureAndSignedBytes()
        let key = try RSAPublicKey(unsafePEMRepresentation: keyPEM)
        guard key.isValidSignature(signature, for: message) else {
            throw SpeedError.setUp(reason: "the Adobe token's signature does not verify with TVEKit's bare verification")
        }
        return { key.isValidSignature(signature, for: message) }
    }

    /// The signature bytes and the signed bytes, cut out of the token's text without the token parser.
    private static func signatureAndSignedBytes() throws -> (signature: [UInt8], message: [UInt8]) {
        let open = "<signatureInfo>"
        guard token.hasPrefix(open), let close = token.range(of: open, range: open.endIndex..<token.endIndex),
            let signed = token.range(of: "<authToken>")
        else { throw SpeedError.setUp(reason: "the embedded Adobe token has an unexpected shape") }
        return (try Base64.decode(token[open.endIndex..<close.lowerBound]), Array(token[signed.lowerBound...].utf8))
    }
}
