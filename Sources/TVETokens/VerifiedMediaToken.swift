import Foundation
import TVECrypto
import TVEJSON

/// The fields of a token that verified, with the getters of Adobe's `ITokenVerifier`. The strings are read from the
/// token's text when asked for.
public struct VerifiedMediaToken: Sendable, Hashable {
    /// The verified token.
    let token: ShortMediaToken

    /// `getResourceID()`.
    public var resourceID: String { token.resourceID }
    /// `getTimeIssued()`, in milliseconds since the Unix epoch.
    public var timeIssued: Int64 { token.issueTime }
    /// `getTimeToLive()`, in milliseconds.
    public var timeToLive: Int64 { token.ttl }
    /// `getUserSessionGUID()`: the anonymized session GUID set by the MVPD.
    public var userSessionGUID: String { token.sessionGUID }
    /// `getMvpdId()`.
    public var mvpdId: String { token.mvpdId }
    /// `getProxyMvpdId()`: `nil` when the token has no proxyMvpdId element.
    public var proxyMvpdId: String? { token.proxyMvpdId }
    /// The requestor the token was issued to (equal to the verifier's).
    public var requestorID: String { token.requestorID }
    /// The `issueTime` text as sent (``timeIssued`` is its value).
    public var issueTimeText: String { token.issueTimeText }
    /// The wire form of the token.
    public var form: ShortMediaToken.Form { token.form }

    /// ``timeIssued`` as a date.
    public var issueDate: Date { Date(timeIntervalSince1970: Double(timeIssued) / 1000) }
    /// The end of validity without skew, as a date.
    public var expiryDate: Date { Date(timeIntervalSince1970: Double(timeIssued.addingSaturating(timeToLive)) / 1000) }
}
