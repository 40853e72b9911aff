import Foundation
import TVECrypto
import TVEJSON

/// The outcome of verifying one token, with Adobe's Media Token Verifier result codes (`ITokenVerifier.eReturnValue`)
/// extended by TVEKit.
public struct MediaTokenVerification: Sendable, CustomStringConvertible {
    /// A result code. Its ``rawValue`` (`VALID_TOKEN`, ...) is stable and is what `tvekit token verify` prints.
    public struct Result: Hashable, Sendable, CustomStringConvertible {
        /// The stable code text, such as `VALID_TOKEN` or `TOKEN_EXPIRED`.
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The token is authentic, for this requestor (and resource), within its lifetime and not replayed.
        public static let validToken = Result("VALID_TOKEN")
        /// The token does not follow the format (or is too large).
        public static let invalidTokenFormat = Result("INVALID_TOKEN_FORMAT")
        /// No trusted key verifies the signature over the signed bytes.
        public static let invalidSignature = Result("INVALID_SIGNATURE")
        /// `now >= issueTime + ttl + skew` (Java: `TOKEN_EXPIRED`, "Token TTL is not valid").
        public static let tokenExpired = Result("TOKEN_EXPIRED")
        /// `now < issueTime - skew` (TVEKit extension).
        public static let tokenNotYetValid = Result("TOKEN_NOT_YET_VALID")
        /// The token was issued to another requestor (TVEKit extension; the Java API compares it implicitly).
        public static let invalidRequestorID = Result("INVALID_REQUESTOR_ID")
        /// The token authorizes another resource.
        public static let invalidResourceID = Result("INVALID_RESOURCE_ID")
        /// The replay guard has seen this token already (TVEKit extension).
        public static let tokenReplayed = Result("TOKEN_REPLAYED")
        /// The replay store could not say whether the token was used before (down, slow): the verification fails
        /// closed (TVEKit extension; the verification service answers it with HTTP 503).
        public static let replayCheckFailed = Result("REPLAY_CHECK_FAILED")

        /// Every result code, in check order.
        public static let all: [Result] = [
            .validToken, .invalidTokenFormat, .invalidSignature, .invalidRequestorID, .invalidResourceID, .tokenNotYetValid,
            .tokenExpired, .tokenReplayed, .replayCheckFailed,
        ]

        public var description: String { rawValue }
    }

    /// The result code.
    public let result: Result
    /// The verified token; present exactly when ``result`` is ``Result/validToken``.
    public let token: VerifiedMediaToken?
    /// Why the token is not valid (empty when it is). Never echoes the token's contents.
    public let reason: String

    /// Whether the token is valid.
    public var isValid: Bool { result == .validToken }

    public var description: String { reason.isEmpty ? result.rawValue : "\(result.rawValue): \(reason)" }

    /// A fail-closed verification: the replay store could not decide (for services that keep one-time use elsewhere).
    package static func failedReplayCheck(_ reason: String) -> MediaTokenVerification {
        invalid(.replayCheckFailed, reason)
    }

    static func invalid(_ result: Result, _ reason: String) -> MediaTokenVerification {
        MediaTokenVerification(result: result, token: nil, reason: reason)
    }
}
