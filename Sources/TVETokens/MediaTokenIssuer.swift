import Foundation
import TVECrypto

/// Issues signed short media tokens (for the local service provider, tests and tools).
///
/// Safe to share between threads; the private key is parsed once by the caller.
public struct MediaTokenIssuer: Sendable {
    /// The default lifetime, 7 minutes (Adobe's documented default, formats.md §1).
    public static let defaultTTL: Int64 = 420_000

    private let privateKey: RSAPrivateKey
    private let clock: any MediaTokenClock

    public init(privateKey: RSAPrivateKey, clock: any MediaTokenClock = SystemMediaTokenClock()) {
        self.privateKey = privateKey
        self.clock = clock
    }

    /// Issues a token.
    /// - Parameters:
    ///   - sessionGUID: a fresh random UUID by default.
    ///   - ttl: lifetime in milliseconds, ``defaultTTL`` by default.
    ///   - issueTime: milliseconds since the epoch, the clock's now by default.
    /// - Throws: ``MediaTokenError/Code/invalidField`` (empty or over-long field, negative time),
    ///   ``MediaTokenError/Code/signingFailed``.
    public func issue(requestorID: String, resourceID: String, mvpdId: String, sessionGUID: String = UUID().uuidString,
                      proxyMvpdId: String? = nil, ttl: Int64 = MediaTokenIssuer.defaultTTL, issueTime: Int64? = nil) throws -> ShortMediaToken {
        let issued = issueTime ?? clock.nowMilliseconds
        let element = try MediaTokenCodec.signedElement(sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID,
                                                        ttl: ttl, issueTime: issued, mvpdId: mvpdId, proxyMvpdId: proxyMvpdId)
        let signature: [UInt8]
        do {
            signature = try privateKey.signature(for: element, padding: .pkcs1v15SHA256)
        } catch {
            throw MediaTokenError.signingFailed(reason: "RSA signing failed")
        }
        let (text, range) = MediaTokenCodec.tokenText(signature: signature, signedElement: element)
        guard text.count <= ShortMediaToken.maximumInputBytes else {
            throw MediaTokenError.invalidField(reason: "the token would be \(text.count) bytes; the limit is \(ShortMediaToken.maximumInputBytes)")
        }
        return ShortMediaToken(sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID, ttl: ttl, issueTime: issued,
                               mvpdId: mvpdId, proxyMvpdId: proxyMvpdId, signature: signature, text: text, signedRange: range)
    }
}
