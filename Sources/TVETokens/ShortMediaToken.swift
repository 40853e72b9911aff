import Foundation
import TVECrypto

/// A short media token (SMT), parsed but **not verified**.
///
/// The format and TVEKit's choices are fixed in formats.md §1:
///
/// ```
/// <signatureInfo>SIG</signatureInfo><shortAuthorizationToken><sessionGUID>G</sessionGUID><requestorID>R</requestorID>
/// <resourceID>S</resourceID><ttl>T</ttl><issueTime>I</issueTime><mvpdId>M</mvpdId><proxyMvpdId>P</proxyMvpdId>
/// </shortAuthorizationToken>
/// ```
/// (one line on the wire: no whitespace anywhere between elements).
///
/// - The children appear exactly once, in this order; `proxyMvpdId` may be empty or absent.
/// - Text is escaped with exactly the five XML entities (`&amp; &lt; &gt; &quot; &apos;`); any other `&` and any raw
///   `<` in text are errors. No attributes, comments, CDATA, processing instructions, DOCTYPE, XML declaration or
///   nested elements. Trailing bytes are errors. Text must be valid UTF-8.
/// - `ttl` is decimal milliseconds and `issueTime` decimal milliseconds since the Unix epoch (**choice**): ASCII
///   digits only, no sign, at most `Int64.max`. `sessionGUID`, `requestorID`, `resourceID` and `mvpdId` are non-empty.
/// - `SIG` is canonical padded standard Base64 of an RSASSA-PKCS1-v1_5 SHA-256 signature over the **signed bytes**:
///   exactly the token text from the `<` of `<shortAuthorizationToken>` to the `>` of `</shortAuthorizationToken>`,
///   as on the wire, never re-serialised (**choice**).
/// - The serialized form (REST `serializedToken`) is standard Base64 of the token text; spaces and line breaks in it
///   are ignored. Raw token text (starting with `<signatureInfo>`) is accepted too.
/// - Limits (**choice**): the input at most 64 KiB, any field at most 16 KiB after unescaping.
///
/// Everything in a `ShortMediaToken` comes from the token itself and is untrusted until ``MediaTokenVerifier`` says
/// the token is valid; use the ``VerifiedMediaToken`` it returns, not these fields, for decisions.
public struct ShortMediaToken: Sendable, Hashable {
    /// The MVPD-scoped user session identifier.
    public let sessionGUID: String
    /// The requestor (programmer) the token was issued to.
    public let requestorID: String
    /// The resource the token authorizes (a channel ID or an MRSS fragment).
    public let resourceID: String
    /// The lifetime in milliseconds.
    public let ttl: Int64
    /// The issue time in milliseconds since the Unix epoch.
    public let issueTime: Int64
    /// The MVPD that authorized the user.
    public let mvpdId: String
    /// The proxy MVPD: `nil` when the element is absent, `""` when it is empty.
    public let proxyMvpdId: String?
    /// The signature bytes from `signatureInfo`.
    public let signature: [UInt8]
    /// The whole token text.
    public let text: [UInt8]
    /// Where the signed bytes lie in ``text``.
    public let signedRange: Range<Int>

    /// The largest accepted input (serialized or raw), 64 KiB.
    public static let maximumInputBytes = 65536
    /// The largest accepted field, after unescaping, 16 KiB.
    public static let maximumFieldBytes = 16384

    /// The bytes the signature covers: `<shortAuthorizationToken>…</shortAuthorizationToken>` exactly as received.
    public var signedBytes: ArraySlice<UInt8> { text[signedRange] }

    /// The serialized form: standard Base64 of ``text`` (what REST `serializedToken` carries).
    public var serialized: String { Base64.encode(text) }

    /// Parses a token: the serialized (Base64) form, whitespace-tolerant, or raw token text.
    /// - Throws: ``MediaTokenError`` with ``MediaTokenError/Code/malformedToken`` (what and the byte offset) or
    ///   ``MediaTokenError/Code/inputTooLarge``.
    @inlinable
    public init(parsing input: some DataProtocol) throws {
        // Specialised in the caller's module; the parser itself is non-generic.
        if let token = try input.withContiguousStorageIfAvailable({ try Self._parse(UnsafeRawBufferPointer($0)) }) {
            self = token
        } else {
            self = try [UInt8](input).withUnsafeBytes { try Self._parse($0) }
        }
    }

    @usableFromInline
    static func _parse(_ bytes: UnsafeRawBufferPointer) throws -> ShortMediaToken {
        try MediaTokenCodec.parse(bytes)
    }

    /// Parses a token given as a string (serialized or raw).
    public init(parsing input: String) throws {
        var input = input
        self = try input.withUTF8 { try MediaTokenCodec.parse(UnsafeRawBufferPointer($0)) }
    }

    init(sessionGUID: String, requestorID: String, resourceID: String, ttl: Int64, issueTime: Int64, mvpdId: String,
         proxyMvpdId: String?, signature: [UInt8], text: [UInt8], signedRange: Range<Int>) {
        self.sessionGUID = sessionGUID
        self.requestorID = requestorID
        self.resourceID = resourceID
        self.ttl = ttl
        self.issueTime = issueTime
        self.mvpdId = mvpdId
        self.proxyMvpdId = proxyMvpdId
        self.signature = signature
        self.text = text
        self.signedRange = signedRange
    }
}
