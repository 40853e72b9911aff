import Foundation
import TVECrypto
import TVEJSON

/// The JSON shape of a verification, shared by `tvekit token verify --json` and the verification web service:
/// `{"result": CODE, "reason"}` for an invalid token, `{"result": "VALID_TOKEN", "sessionGUID", "requestorID",
/// "resourceID", "ttl", "issueTime", "issueTimeText", "mvpdId", "proxyMvpdId"}` for a valid one (fields only then),
/// plus `line` in batch output. `issueTime` is epoch milliseconds; `issueTimeText` is the text as sent.
public struct MediaTokenVerificationReport: Encodable, Sendable {
    /// The token's line in batch input (`tvekit` counts from 1); `nil`, and left out, otherwise.
    public var line: Int?
    /// The result code, as ``MediaTokenVerification/Result/rawValue`` (`VALID_TOKEN`, ...).
    public var result: String
    /// Why the token is not valid; `nil` for a valid token.
    public var reason: String?
    /// The token's session GUID (``VerifiedMediaToken/userSessionGUID``); only for a valid token.
    public var sessionGUID: String?
    /// The requestor the token was issued to; only for a valid token.
    public var requestorID: String?
    /// The resource the token authorizes; only for a valid token.
    public var resourceID: String?
    /// The token's lifetime in milliseconds; only for a valid token.
    public var ttl: Int64?
    /// The issue time in milliseconds since the Unix epoch; only for a valid token.
    public var issueTime: Int64?
    /// The `issueTime` text as sent in the token; only for a valid token.
    public var issueTimeText: String?
    /// The MVPD's ID from the token; only for a valid token.
    public var mvpdId: String?
    /// The proxy MVPD's ID, empty when the token has none; only for a valid token.
    public var proxyMvpdId: String?

    /// The report of `verification`: the token's fields when it is valid, ``reason`` otherwise.
    /// - Parameters:
    ///   - verification: the verification to report.
    ///   - line: the token's line in batch input, or `nil` for none.
    public init(_ verification: MediaTokenVerification, line: Int? = nil) {
        self.line = line
        result = verification.result.rawValue
        if let token = verification.token {
            sessionGUID = token.userSessionGUID
            requestorID = token.requestorID
            resourceID = token.resourceID
            ttl = token.timeToLive
            issueTime = token.timeIssued
            issueTimeText = token.issueTimeText
            mvpdId = token.mvpdId
            proxyMvpdId = token.proxyMvpdId ?? ""
        } else {
            reason = verification.reason
        }
    }

    /// Compact JSON with sorted keys, absent fields left out: the same text as `JSONEncoder` with `.sortedKeys`,
    /// written directly (a verification service answers one per request).
    public var jsonText: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// Appends ``jsonText`` to `output` (a batch's answer is written into one string).
    public func write(to output: inout String) {
        output += "{"
        var first = true
        func key(_ name: String) {
            output += first ? "\"" : ",\""
            first = false
            output += name
            output += "\":"
        }
        if let issueTime { key("issueTime"); output += String(issueTime) }
        if let issueTimeText { key("issueTimeText"); JSONValue.writeString(issueTimeText, to: &output) }
        if let line { key("line"); output += String(line) }
        if let mvpdId { key("mvpdId"); JSONValue.writeString(mvpdId, to: &output) }
        if let proxyMvpdId { key("proxyMvpdId"); JSONValue.writeString(proxyMvpdId, to: &output) }
        if let reason { key("reason"); JSONValue.writeString(reason, to: &output) }
        if let requestorID { key("requestorID"); JSONValue.writeString(requestorID, to: &output) }
        if let resourceID { key("resourceID"); JSONValue.writeString(resourceID, to: &output) }
        key("result")
        JSONValue.writeString(result, to: &output)
        if let sessionGUID { key("sessionGUID"); JSONValue.writeString(sessionGUID, to: &output) }
        if let ttl { key("ttl"); output += String(ttl) }
        output += "}"
    }
}
