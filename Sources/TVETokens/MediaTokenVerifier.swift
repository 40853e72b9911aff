import Foundation
import TVECrypto
import TVEJSON

/// Verifies short media tokens before playback: the open, thread-safe counterpart of Adobe's Java
/// `ITokenVerifier`.
///
/// Configure one verifier per requestor at start-up (certificates are parsed once) and share it: `verify` is safe
/// to call from any number of threads and tasks at once, and costs one Base64 decode, one strict parse and one
/// RSA-SHA256 verification per trusted key tried.
///
/// Checks run in this order, and the first failure is the result: format → signature (valid when **any** trusted
/// key verifies, so keys can rotate) → requestor → resource (skipped when `nil`, as in the Java API) → time
/// (`issueTime - skew <= now < issueTime + ttl + skew`, saturating) → replay (when a ``TokenReplayGuard`` is set).
/// The requestor is compared byte for byte on its UTF-8 (no Unicode normalisation). The resource matches when the
/// bytes are equal or, for MRSS documents, by the rules of ``MRSSResource/resource(_:matches:)`` (a request for
/// the plain channel `TNT` accepts a token for an MRSS document of channel `TNT`). The fields of a token whose
/// signature failed are never returned.
///
/// Adobe signed its tokens of 2015–2017 with an RSA-1024 key. Such a key is trusted only with
/// `allowing1024BitKeys: true`; keys under 1024 bits never are.
///
/// ```swift
/// let verifier = try MediaTokenVerifier(trustedCertificates: certificates, requestorID: "my-requestor",
///                                       replayGuard: InMemoryTokenReplayGuard())   // one-time use: one line
/// let outcome = verifier.verify(serializedToken, resourceID: "my-channel")
/// guard outcome.isValid, let token = outcome.token else { deny(outcome.result) }
/// ```
public struct MediaTokenVerifier: Sendable {
    /// The trusted keys, tried in order.
    public let trustedKeys: [RSAPublicKey]
    /// The requestor ID tokens must carry.
    public let requestorID: String
    /// The tolerated clock difference, applied at both ends of the validity window.
    public let clockSkewMilliseconds: Int64
    private let clock: any MediaTokenClock
    private let replayGuard: (any TokenReplayGuard)?

    /// - Parameters:
    ///   - trustedKeys: the public keys whose signatures are accepted (at least one).
    ///   - requestorID: the requestor ID tokens must carry (non-empty).
    ///   - clockSkew: tolerated clock difference, 0 by default; at most one day.
    ///   - clock: where "now" comes from; the system clock by default.
    ///   - replayGuard: enables one-time use; off (`nil`) by default.
    ///   - allowing1024BitKeys: trust RSA keys of 1024 to 2047 bits (Adobe's key of 2015–2017 has 1024); off by
    ///     default, and such keys are then refused.
    /// - Throws: ``MediaTokenError/Code/invalidConfiguration`` (no key, empty requestor, skew out of range, a key
    ///   under 2048 bits without `allowing1024BitKeys`, a key under 1024 bits).
    public init(
        trustedKeys: [RSAPublicKey], requestorID: String, clockSkew: Duration = .zero,
        clock: any MediaTokenClock = SystemMediaTokenClock(), replayGuard: (any TokenReplayGuard)? = nil,
        allowing1024BitKeys: Bool = false
    ) throws {
        guard !trustedKeys.isEmpty else { throw MediaTokenError.invalidConfiguration(reason: "no trusted key or certificate") }
        for (position, key) in trustedKeys.enumerated() where key.keySizeInBits < 2048 {
            guard allowing1024BitKeys, key.keySizeInBits >= 1024 else {
                throw MediaTokenError.invalidConfiguration(
                    reason: "trusted key \(position + 1) has \(key.keySizeInBits) bits; "
                        + (key.keySizeInBits >= 1024
                            ? "a key under 2048 bits is trusted only with allowing1024BitKeys" : "at least 1024 are required"))
            }
        }
        guard !requestorID.isEmpty else { throw MediaTokenError.invalidConfiguration(reason: "the requestor ID is empty") }
        let skew = clockSkew.components.seconds * 1000 + clockSkew.components.attoseconds / 1_000_000_000_000_000
        guard skew >= 0, skew <= 86_400_000 else {
            throw MediaTokenError.invalidConfiguration(reason: "the clock skew must be between 0 and one day")
        }
        self.trustedKeys = trustedKeys
        self.requestorID = requestorID
        self.clockSkewMilliseconds = skew
        self.clock = clock
        self.replayGuard = replayGuard
    }

    /// A verifier trusting the public keys of `trustedCertificates` (for example the current and the next Adobe
    /// signing certificate). Certificate validity dates are not checked: trust is the caller's configuration.
    /// - Throws: ``MediaTokenError/Code/invalidConfiguration``, or the `TVECryptoError` of a certificate whose
    ///   key is unusable.
    public init(
        trustedCertificates: [X509Certificate], requestorID: String, clockSkew: Duration = .zero,
        clock: any MediaTokenClock = SystemMediaTokenClock(), replayGuard: (any TokenReplayGuard)? = nil,
        allowing1024BitKeys: Bool = false
    ) throws {
        // Loaded at the legacy floor: the key-size rule and its error are the designated initialiser's.
        let keys: [RSAPublicKey]
        do {
            keys = try trustedCertificates.map { try RSAPublicKey(certificate: $0, allowing1024BitKeys: true) }
        } catch let error as TVECryptoError where error.code == .keyTooSmall {
            throw MediaTokenError.invalidConfiguration(reason: "a trusted certificate's key is too small: \(error.reason)")
        }
        try self.init(
            trustedKeys: keys, requestorID: requestorID, clockSkew: clockSkew, clock: clock, replayGuard: replayGuard,
            allowing1024BitKeys: allowing1024BitKeys)
    }

    /// Verifies a token given as bytes (serialized Base64 or raw token text).
    /// - Parameters:
    ///   - token: the token's bytes.
    ///   - resourceID: the resource the caller is about to play; `nil` skips the resource check.
    @inlinable
    public func verify(_ token: some DataProtocol, resourceID: String? = nil) -> MediaTokenVerification {
        if let outcome = token.withContiguousStorageIfAvailable({ _verify(UnsafeRawBufferPointer($0), resourceID: resourceID) }) {
            return outcome
        }
        return [UInt8](token).withUnsafeBytes { _verify($0, resourceID: resourceID) }
    }

    /// Verifies a token given as a string (serialized Base64 or raw token text).
    public func verify(_ token: String, resourceID: String? = nil) -> MediaTokenVerification {
        var token = token
        return token.withUTF8 { _verify(UnsafeRawBufferPointer($0), resourceID: resourceID) }
    }

    @usableFromInline
    func _verify(_ bytes: UnsafeRawBufferPointer, resourceID: String?) -> MediaTokenVerification {
        do {
            return try MediaTokenCodec.parse(bytes) { token, signature in verify(token, signature: signature, resourceID: resourceID) }
        } catch let error as MediaTokenError {
            return .invalid(.invalidTokenFormat, error.reason)
        } catch {
            return .invalid(.invalidTokenFormat, "the token cannot be parsed")
        }
    }

    /// Verifies an already parsed token.
    public func verify(parsed token: ShortMediaToken, resourceID: String? = nil) -> MediaTokenVerification {
        token.withSignature { verify(token, signature: $0, resourceID: resourceID) }
    }

    private func verify(_ token: ShortMediaToken, signature: UnsafeRawBufferPointer, resourceID: String?) -> MediaTokenVerification {
        switch check(token, signature: signature, resourceID: resourceID) {
        case .decided(let verification):
            return verification
        case .awaitingReplayCheck(let pending):
            guard let replayGuard else { return pending.complete(with: .firstUse) }
            guard let key = pending.key else {
                return pending.complete(with: .unavailable(reason: "the token's replay key cannot be computed"))
            }
            return pending.complete(
                with: replayGuard.recordFirstUse(of: key, expiresAt: pending.expiresAt, now: pending.now) ? .firstUse : .replayed)
        }
    }

    /// Every check but one-time use: signature, requestor, resource, time.
    private func check(_ token: ShortMediaToken, signature: UnsafeRawBufferPointer, resourceID: String?) -> PendingMediaTokenVerification {
        // One SHA-256 of the signed bytes, made with the first key's pooled digest context, serves every key's
        // signature check and the replay key.
        var replayKey: TokenReplayKey?
        let signed = withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest -> Bool in
            guard let base = digest.baseAddress?.assumingMemoryBound(to: UInt8.self), let firstKey = trustedKeys.first,
                let first = token.signedBytes.withUnsafeBytes({
                    firstKey.hashAndCheckSignature(signature, message: $0, padding: .pkcs1v15SHA256, digest: base)
                })
            else { return false }
            let digestBytes = UnsafeRawBufferPointer(digest)
            replayKey = TokenReplayKey(sha256Digest: digestBytes)
            return first
                || trustedKeys.dropFirst().contains { $0.isValidSignature(signature, digest: digestBytes, padding: .pkcs1v15SHA256) }
        }
        guard signed else {
            return .decided(.invalid(.invalidSignature, "no trusted key verifies the signature"))
        }
        guard token.field(token.requestorIDStorage, equals: requestorID) else {
            return .decided(.invalid(.invalidRequestorID, "the token was issued to another requestor"))
        }
        if let resourceID, !token.field(token.resourceIDStorage, equals: resourceID),
            !MRSSResource.resource(token.resourceID, matches: resourceID)
        {
            return .decided(.invalid(.invalidResourceID, "the token authorizes another resource"))
        }
        let now = clock.nowMilliseconds
        let notBefore = token.issueTime.subtractingSaturating(clockSkewMilliseconds)
        let notAfter = token.issueTime.addingSaturating(token.ttl).addingSaturating(clockSkewMilliseconds)
        if now < notBefore { return .decided(.invalid(.tokenNotYetValid, "the token's issue time is in the future")) }
        if now >= notAfter { return .decided(.invalid(.tokenExpired, "the token's lifetime has ended")) }
        return .awaitingReplayCheck(.init(expiresAt: notAfter, now: now, token: VerifiedMediaToken(token: token), key: replayKey))
    }
}

extension MediaTokenVerifier {
    /// Checks a token up to, not including, one-time use (this verifier's own replay guard is not consulted): a result
    /// when an earlier check decides, else the replay check the token still needs. For services that check a batch of
    /// tokens against a shared store with one round trip; ``verify(_:resourceID:replayGuard:)`` does it for one token.
    public func verifyAwaitingReplayCheck(_ token: String, resourceID: String? = nil) -> PendingMediaTokenVerification {
        var token = token
        return token.withUTF8 { verifyAwaitingReplayCheck(bytes: UnsafeRawBufferPointer($0), resourceID: resourceID) }
    }

    /// As ``verifyAwaitingReplayCheck(_:resourceID:)``, for a token given as bytes (a range of a request body: no copy).
    public func verifyAwaitingReplayCheck(bytes: UnsafeRawBufferPointer, resourceID: String? = nil) -> PendingMediaTokenVerification {
        do {
            return try MediaTokenCodec.parse(bytes) { token, signature in check(token, signature: signature, resourceID: resourceID) }
        } catch let error as MediaTokenError {
            return .decided(.invalid(.invalidTokenFormat, error.reason))
        } catch {
            return .decided(.invalid(.invalidTokenFormat, "the token cannot be parsed"))
        }
    }

    /// Verifies a token with one-time use kept by an asynchronous store (a database shared by a fleet): every check of
    /// ``verify(_:resourceID:)-(String,_)``, then `replayGuard`. When the store cannot answer, the result is
    /// ``MediaTokenVerification/Result/replayCheckFailed``, never ``MediaTokenVerification/Result/validToken``.
    public func verify(_ token: String, resourceID: String? = nil, replayGuard: any AsyncTokenReplayGuard) async -> MediaTokenVerification {
        switch verifyAwaitingReplayCheck(token, resourceID: resourceID) {
        case .decided(let verification): return verification
        case .awaitingReplayCheck(let pending):
            guard let key = pending.key else {
                return pending.complete(with: .unavailable(reason: "the token's replay key cannot be computed"))
            }
            return pending.complete(with: await replayGuard.recordFirstUse(of: key, expiresAt: pending.expiresAt, now: pending.now))
        }
    }
}

extension MediaTokenVerifier {
    /// Byte-for-byte UTF-8 equality. IDs are compared as bytes, not with `String ==`, whose Unicode canonical
    /// equivalence would let two differently encoded IDs match.
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }  // both empty
                return memcmp(l, r, left.count) == 0
            }
        }
    }
}

extension Int64 {
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
