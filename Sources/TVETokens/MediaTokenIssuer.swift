import Foundation
import TVECrypto

/// Issues signed short media tokens (for the local service provider, tests and tools).
///
/// By default it writes the form real Adobe tokens have (``ShortMediaToken/Form/adobe``: `<signatureInfo>`
/// without slash, the `authToken` root, `issueTime` as `yyyy-MM-dd HH:mm:ss +0000`); see `FORMATS.md` §1.
/// Safe to share between threads; the private key is parsed once by the caller and must have at least 2048 bits.
public struct MediaTokenIssuer: Sendable {
    /// The default lifetime, 7 minutes (Adobe's documented default).
    public static let defaultTTL: Int64 = 420_000

    private let privateKey: RSAPrivateKey
    private let clock: any MediaTokenClock
    /// The form of the tokens this issuer writes.
    public let form: ShortMediaToken.Form

    /// - Parameters:
    ///   - privateKey: the signing key (at least 2048 bits; ``issue(requestorID:resourceID:mvpdId:sessionGUID:proxyMvpdId:ttl:issueTime:)``
    ///     refuses a smaller one).
    ///   - clock: where "now" comes from.
    ///   - form: the wire form to write; ``ShortMediaToken/Form/adobe`` (UTC offset `+0000`) by default. Use
    ///     `.adobe(utcOffsetMinutes:)` for another offset.
    public init(privateKey: RSAPrivateKey, clock: any MediaTokenClock = SystemMediaTokenClock(), form: ShortMediaToken.Form = .adobe) {
        self.privateKey = privateKey
        self.clock = clock
        self.form = form
    }

    /// Issues a token.
    /// - Parameters:
    ///   - requestorID: the requestor the token is for.
    ///   - resourceID: the resource it authorizes.
    ///   - mvpdId: the MVPD that authorized it.
    ///   - sessionGUID: a fresh random UUID by default.
    ///   - proxyMvpdId: the proxy MVPD's ID, when the MVPD is reached through a proxy; none by default.
    ///   - ttl: lifetime in milliseconds, ``defaultTTL`` by default.
    ///   - issueTime: milliseconds since the epoch, the clock's now by default. A dated form has whole seconds, so
    ///     the issue time is rounded down to the second there (the returned token's ``ShortMediaToken/issueTime``
    ///     says what was written).
    /// - Throws: ``MediaTokenError/Code/invalidField`` (empty or over-long field, negative time, a date out of
    ///   range), ``MediaTokenError/Code/invalidConfiguration`` (a key under 2048 bits),
    ///   ``MediaTokenError/Code/signingFailed``.
    public func issue(
        requestorID: String, resourceID: String, mvpdId: String, sessionGUID: String = UUID().uuidString,
        proxyMvpdId: String? = nil, ttl: Int64 = MediaTokenIssuer.defaultTTL, issueTime: Int64? = nil
    ) throws -> ShortMediaToken {
        guard privateKey.keySizeInBits >= 2048 else {
            throw MediaTokenError.invalidConfiguration(
                reason: "the signing key has \(privateKey.keySizeInBits) bits; tokens are signed with 2048 bits or more")
        }
        var issued = issueTime ?? clock.nowMilliseconds
        if case .dateTime = form.issueTimeEncoding, issued >= 0 { issued -= issued % 1000 }
        guard issued >= 0 else { throw MediaTokenError.invalidField(reason: "issueTime must not be negative") }
        let timeText = try MediaTokenWriter.issueTimeText(issued, form.issueTimeEncoding)
        let fields = MediaTokenWriter.Fields(
            sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID, ttl: ttl,
            issueTime: issued, mvpdId: mvpdId, proxyMvpdId: proxyMvpdId)
        let element = try MediaTokenWriter.signedElement(fields, issueTimeText: timeText, form: form)
        let signature: [UInt8]
        do {
            signature = try privateKey.signature(for: element, padding: .pkcs1v15SHA256)
        } catch {
            throw MediaTokenError.signingFailed(reason: "RSA signing failed")
        }
        let (text, signatureTextRange, range) = MediaTokenWriter.tokenText(signature: signature, signedElement: element, form: form)
        guard text.count <= ShortMediaToken.maximumInputBytes else {
            throw MediaTokenError.invalidField(
                reason: "the token would be \(text.count) bytes; the limit is \(ShortMediaToken.maximumInputBytes)")
        }
        return ShortMediaToken(
            sessionGUID: .decoded(sessionGUID), requestorID: .decoded(requestorID), resourceID: .decoded(resourceID),
            ttl: ttl, issueTime: issued, issueTimeText: .decoded(timeText), mvpdId: .decoded(mvpdId),
            proxyMvpdId: proxyMvpdId.map { .decoded($0) }, signatureTextRange: signatureTextRange, text: text,
            signedRange: range, form: form)
    }
}
