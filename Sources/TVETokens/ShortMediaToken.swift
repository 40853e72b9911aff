import Foundation
import TVECrypto

/// A short media token (SMT), parsed but **not verified**.
///
/// The grammar and TVEKit's choices are fixed in `FORMATS.md` §1. Real Adobe tokens look like this (one line on
/// the wire, no whitespace between elements):
///
/// ```
/// <signatureInfo>SIG<signatureInfo><authToken><sessionGUID>G</sessionGUID><requestorID>R</requestorID>
/// <resourceID>S</resourceID><ttl>420000</ttl><issueTime>2017-03-15 16:40:46 -0700</issueTime><mvpdId>M</mvpdId></authToken>
/// ```
///
/// The parser reads that form and the one in Adobe's documentation, and records which it read in ``form``:
///
/// - the `signatureInfo` closing tag without the slash (real tokens) or with it;
/// - the root `authToken` (real tokens) or `shortAuthorizationToken` (the docs), closed by the same name;
/// - `issueTime` as `yyyy-MM-dd HH:mm:ss ±hhmm` (real tokens) or as decimal epoch milliseconds;
/// - field text as character data with the five predefined entities and CDATA sections, including the split
///   `]]]]><![CDATA[>` that nests CDATA (a real `resourceID` is an MRSS document in CDATA).
///
/// It stays strict about everything else: element order, duplicates, attributes, comments, DOCTYPE, numeric
/// character references, `]]>` outside CDATA, trailing bytes, integer overflow, invalid UTF-8 and the size
/// limits are errors that name the element and the byte offset.
///
/// The signed bytes are exactly the root element as received (``signedBytes``); nothing is re-serialised.
///
/// Everything in a `ShortMediaToken` comes from the token itself and is untrusted until ``MediaTokenVerifier`` says
/// the token is valid; use the ``VerifiedMediaToken`` it returns, not these fields, for decisions.
public struct ShortMediaToken: Sendable, Hashable {
    /// Tokens are equal when their texts are: every field is read from the text.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The MVPD-scoped user session identifier.
    public var sessionGUID: String { string(sessionGUIDStorage) }
    /// The requestor (programmer) the token was issued to.
    public var requestorID: String { string(requestorIDStorage) }
    /// The resource the token authorizes: a plain channel ID or an MRSS document (see ``MRSSResource``).
    public var resourceID: String { string(resourceIDStorage) }
    /// The lifetime in milliseconds.
    public let ttl: Int64
    /// The issue time in milliseconds since the Unix epoch (whole seconds for a dated `issueTime`).
    public let issueTime: Int64
    /// The `issueTime` text as sent (after CDATA and entity decoding), such as `2017-03-15 16:40:46 -0700`.
    public var issueTimeText: String { string(issueTimeStorage) }
    /// The MVPD that authorized the user.
    public var mvpdId: String { string(mvpdIdStorage) }
    /// The proxy MVPD: `nil` when the element is absent, `""` when it is empty.
    public var proxyMvpdId: String? { proxyMvpdIdStorage.map(string) }

    /// Where a field's text is. The usual field (ASCII, no entity, no CDATA) stays in ``text`` until it is asked
    /// for, so parsing makes no string; a field that needed decoding, or is not ASCII, is kept decoded and validated.
    enum Field: Sendable {
        case inText(Range<Int>)
        case decoded(String)
    }
    let sessionGUIDStorage: Field
    let requestorIDStorage: Field
    let resourceIDStorage: Field
    let issueTimeStorage: Field
    let mvpdIdStorage: Field
    let proxyMvpdIdStorage: Field?

    func string(_ field: Field) -> String {
        switch field {
        case .inText(let range): String(decoding: text[range], as: UTF8.self)
        case .decoded(let string): string
        }
    }

    /// Whether a field is exactly the UTF-8 bytes of `value` (no Unicode normalisation), without making a string.
    func field(_ field: Field, equals value: String) -> Bool {
        switch field {
        case .inText(let range):
            var value = value
            return value.withUTF8 { other in
                guard other.count == range.count else { return false }
                return text.withUnsafeBufferPointer { all in
                    guard let left = all.baseAddress, let right = other.baseAddress else { return range.isEmpty }
                    return memcmp(left + range.lowerBound, right, range.count) == 0
                }
            }
        case .decoded(let string):
            return MediaTokenVerifier.sameBytes(string, value)
        }
    }

    /// The signature bytes from `signatureInfo` (decoded on each access; the parser has checked the Base64).
    public var signature: [UInt8] {
        withSignature { [UInt8]($0) }
    }
    /// Where the signature's Base64 text lies in ``text``.
    let signatureTextRange: Range<Int>

    /// Calls `body` with the signature bytes, decoded into temporary storage (no heap allocation for the usual
    /// sizes): the verifier's path.
    func withSignature<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        text.withUnsafeBytes { all in
            let encoded = UnsafeRawBufferPointer(rebasing: all[signatureTextRange])
            // Checked by the parser (or written by the issuer), so it decodes; were it not to, `body` gets no bytes,
            // which no key verifies.
            return (try? MediaTokenCodec.withSignature(encoded, body)) ?? body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    /// The whole token text.
    public let text: [UInt8]
    /// Where the signed bytes lie in ``text``.
    public let signedRange: Range<Int>
    /// Which variant of the wire form the token uses.
    public let form: Form

    /// The largest accepted input (serialized or raw), 64 KiB.
    public static let maximumInputBytes = 65536
    /// The largest accepted field, after decoding, 16 KiB.
    public static let maximumFieldBytes = 16384

    /// The bytes the signature covers: the root element (`<authToken>…</authToken>`) exactly as received.
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

    init(
        sessionGUID: Field, requestorID: Field, resourceID: Field, ttl: Int64, issueTime: Int64, issueTimeText: Field,
        mvpdId: Field, proxyMvpdId: Field?, signatureTextRange: Range<Int>, text: [UInt8], signedRange: Range<Int>, form: Form
    ) {
        sessionGUIDStorage = sessionGUID
        requestorIDStorage = requestorID
        resourceIDStorage = resourceID
        self.ttl = ttl
        self.issueTime = issueTime
        issueTimeStorage = issueTimeText
        mvpdIdStorage = mvpdId
        proxyMvpdIdStorage = proxyMvpdId
        self.signatureTextRange = signatureTextRange
        self.text = text
        self.signedRange = signedRange
        self.form = form
    }
}

extension ShortMediaToken {
    /// The variant of the wire form a token uses: what the parser read, or what the issuer writes.
    ///
    /// ``adobe`` is the form of real Adobe tokens and TVEKit's default for writing; ``documented`` is the form of
    /// Adobe's documentation (and of the tokens TVEKit issued before the real form was known).
    public struct Form: Sendable, Hashable, CustomStringConvertible {
        /// The root element, which holds the signed fields.
        public enum Root: String, Sendable, Hashable, CaseIterable {
            /// `<authToken>`, as in real tokens.
            case authToken
            /// `<shortAuthorizationToken>`, as in Adobe's documentation.
            case shortAuthorizationToken
        }

        /// How `signatureInfo` is closed.
        public enum SignatureInfoEnd: String, Sendable, Hashable, CaseIterable {
            /// `<signatureInfo>SIG<signatureInfo>`: no slash, as in every real token.
            case unslashed
            /// `<signatureInfo>SIG</signatureInfo>`: well-formed XML.
            case slashed
        }

        /// How `issueTime` is written.
        public enum IssueTimeEncoding: Sendable, Hashable, CustomStringConvertible {
            /// `yyyy-MM-dd HH:mm:ss ±hhmm`, local time at the given offset from UTC (real tokens: -420, -480).
            case dateTime(utcOffsetMinutes: Int)
            /// Decimal milliseconds since the Unix epoch.
            case epochMilliseconds

            public var description: String {
                switch self {
                case .dateTime(let offset): "dateTime(\(MediaTokenTime.offsetText(offset)))"
                case .epochMilliseconds: "epochMilliseconds"
                }
            }
        }

        /// The root element.
        public var root: Root
        /// How `signatureInfo` is closed.
        public var signatureInfoEnd: SignatureInfoEnd
        /// How `issueTime` is written.
        public var issueTimeEncoding: IssueTimeEncoding

        /// A form from its three parts; ``adobe`` and ``documented`` are the named ones.
        ///
        /// The UTC offset of a dated `issueTime` is not checked here: ``MediaTokenIssuer`` refuses one beyond ±1439 minutes
        /// with ``MediaTokenError/Code/invalidField`` when it issues a token.
        public init(root: Root, signatureInfoEnd: SignatureInfoEnd, issueTimeEncoding: IssueTimeEncoding) {
            self.root = root
            self.signatureInfoEnd = signatureInfoEnd
            self.issueTimeEncoding = issueTimeEncoding
        }

        /// The real form with `issueTime` at UTC (`+0000`): what TVEKit writes by default.
        public static let adobe = Form.adobe(utcOffsetMinutes: 0)

        /// The real form with `issueTime` at the given offset from UTC, in minutes (−1439 to 1439).
        public static func adobe(utcOffsetMinutes: Int) -> Form {
            Form(root: .authToken, signatureInfoEnd: .unslashed, issueTimeEncoding: .dateTime(utcOffsetMinutes: utcOffsetMinutes))
        }

        /// The form of Adobe's documentation: `</signatureInfo>`, `shortAuthorizationToken`, epoch milliseconds.
        public static let documented = Form(
            root: .shortAuthorizationToken, signatureInfoEnd: .slashed,
            issueTimeEncoding: .epochMilliseconds)

        public var description: String { "\(root.rawValue), signatureInfo \(signatureInfoEnd.rawValue), issueTime \(issueTimeEncoding)" }
    }
}
