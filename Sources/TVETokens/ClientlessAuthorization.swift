import Foundation
import TVECrypto

/// A parsed clientless `Authorization` header (FORMATS.md §4), for the service side.
public struct ClientlessAuthorization: Sendable, Hashable {
    /// The HTTP method, in upper case (`GET`, `POST`, ...): the text before `requestor_id=`.
    public let method: String
    /// `requestor_id`: the requestor ID.
    public let requestorID: String
    /// `nonce`: the request's one-time value (a lower-case UUID from ``ClientlessRequestSigner`` by default).
    public let nonce: String
    /// `request_time`: when the request was signed, in milliseconds since the Unix epoch (never negative).
    public let requestTime: Int64
    /// `request_uri`: the request path as the client signed it (clients differ: the full path or its last segment).
    public let requestURI: String
    /// `public_key`: names the client's secret. It is not covered by the signature.
    public let publicKey: String
    /// The Base64 HMAC-SHA1 as sent.
    public let signature: String

    /// The longest header accepted.
    public static let maximumHeaderBytes = 8192

    init(
        method: String, requestorID: String, nonce: String, requestTime: Int64, requestURI: String, publicKey: String,
        signature: String
    ) throws {
        guard !method.isEmpty, method.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw MediaTokenError.malformedHeader(reason: "the method must be an upper-case token such as GET")
        }
        for (name, value) in [("requestor_id", requestorID), ("nonce", nonce), ("request_uri", requestURI), ("public_key", publicKey)] {
            guard !value.isEmpty, Self.isFieldSafe(value) else {
                throw MediaTokenError.malformedHeader(reason: "\(name) is empty or holds \", \" or a control character")
            }
        }
        guard requestTime >= 0 else { throw MediaTokenError.malformedHeader(reason: "request_time is negative") }
        self.method = method
        self.requestorID = requestorID
        self.nonce = nonce
        self.requestTime = requestTime
        self.requestURI = requestURI
        self.publicKey = publicKey
        self.signature = signature
    }

    /// A field must not contain the `", "` separator or control characters, or the header would be ambiguous.
    /// Checked on UTF-8 bytes, like the parser's split, so that both agree whatever follows the comma.
    static func isFieldSafe(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return false }
        return splitFields(bytes).count == 1
    }

    /// Splits on the two bytes `", "`.
    static func splitFields(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var fields: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x2C, bytes[index + 1] == 0x20 {
                fields.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        fields.append(bytes[start...])
        return fields
    }

    /// The signed message: the header up to `, public_key=`.
    public var message: String {
        "\(method) requestor_id=\(requestorID), nonce=\(nonce), signature_method=HMAC-SHA1, request_time=\(requestTime), request_uri=\(requestURI)"
    }

    /// Parses a header value strictly: fields in the order of FORMATS.md §4, `signature_method=HMAC-SHA1`, a decimal
    /// `request_time`, nothing else.
    /// - Throws: ``MediaTokenError/Code/malformedHeader``.
    public init(header: String) throws {
        guard header.utf8.count <= Self.maximumHeaderBytes else {
            throw MediaTokenError.malformedHeader(reason: "the header is over \(Self.maximumHeaderBytes) bytes")
        }
        let fields = Self.splitFields(Array(header.utf8)).map { String(decoding: $0, as: UTF8.self) }
        let names = ["requestor_id", "nonce", "signature_method", "request_time", "request_uri", "public_key", "signature"]
        guard fields.count == names.count else {
            throw MediaTokenError.malformedHeader(reason: "the header has \(fields.count) comma-separated fields; it takes \(names.count)")
        }
        guard let space = fields[0].firstIndex(of: " ") else {
            throw MediaTokenError.malformedHeader(reason: "the header does not start with \"<METHOD> requestor_id=\"")
        }
        let method = String(fields[0][..<space])
        var values: [String] = []
        for (index, name) in names.enumerated() {
            let field = index == 0 ? fields[0][fields[0].index(after: space)...] : Substring(fields[index])
            guard field.hasPrefix(name + "=") else {
                throw MediaTokenError.malformedHeader(reason: "field \(index + 1) is not \(name)=")
            }
            values.append(String(field.dropFirst(name.count + 1)))
        }
        guard values[2] == "HMAC-SHA1" else {
            throw MediaTokenError.malformedHeader(reason: "signature_method must be HMAC-SHA1")
        }
        guard !values[3].isEmpty, values[3].utf8.count <= 18, values[3].utf8.allSatisfy({ (48...57).contains($0) }),
            let time = Int64(values[3])
        else { throw MediaTokenError.malformedHeader(reason: "request_time is not a decimal number of milliseconds") }
        guard !values[6].isEmpty else { throw MediaTokenError.malformedHeader(reason: "signature is empty") }
        try self.init(
            method: method, requestorID: values[0], nonce: values[1], requestTime: time, requestURI: values[4],
            publicKey: values[5], signature: values[6])
    }

    /// Whether the signature is the HMAC-SHA1 of ``message`` under `secret` (compared in constant time) and, when
    /// `publicKey` is given, the header names that public key.
    ///
    /// This checks the HMAC only. A service must also check that ``method``, ``requestURI`` and ``requestorID``
    /// match the request it received, that ``requestTime`` is recent (``isFresh(now:maximumAge:)``) and that the
    /// ``nonce`` was not seen before (a replay store keyed by nonce). `public_key` is not covered by the HMAC: it
    /// only selects the secret.
    public func isValid(secret: SecureBytes, publicKey: String? = nil) -> Bool {
        if let publicKey, publicKey != self.publicKey { return false }
        guard !secret.isEmpty, let expected = try? ClientlessRequestSigner.signature(of: message, secret: secret) else { return false }
        return ConstantTime.equals(Array(expected.utf8), Array(signature.utf8))
    }

    /// Whether ``requestTime`` lies within `maximumAge` milliseconds of `now`, in either direction.
    public func isFresh(now: Int64, maximumAge: Int64 = 300_000) -> Bool {
        let difference = now.subtractingReportingOverflow(requestTime)
        return maximumAge >= 0 && !difference.overflow && difference.partialValue.magnitude <= UInt64(maximumAge)
    }
}
