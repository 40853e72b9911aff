import Foundation

/// The Adobe Pass REST API v2 as TVEKit speaks it, on both sides: the generated contract (``Components``,
/// ``Operations``, ``APIProtocol``, ``Client``) from Adobe's own OpenAPI file with TVEKit's documented overlay, and
/// the parts a generator cannot give: the request headers' codecs (``DeviceIdentifier``, ``DeviceInfo``,
/// ``PartnerFrameworkStatus``, ``TempPassIdentity``), the Enhanced Error codes, and the times' two wire forms.
///
/// The headers are decoded with explicit limits (``maximumHeaderBytes``, ``maximumJSONDepth``); a header that breaks
/// one throws a ``HeaderError`` whose code is the one Adobe answers with.
public enum PassAPIv2 {
    /// The longest header value read (Base64 text).
    public static let maximumHeaderBytes = 8 * 1024
    /// The deepest nesting of objects and arrays read in a Base64 JSON header.
    public static let maximumJSONDepth = 8

    /// The path prefix of every v2 route.
    public static let pathPrefix = "/api/v2"

    /// Adobe's hosts: production and staging (`Servers` lists the prequalification hosts too).
    public static let productionURL = URL(string: "https://sp.auth.adobe.com/api/v2")
    /// Adobe's staging host of REST API v2 (`https://sp.auth-staging.adobe.com/api/v2`).
    public static let stagingURL = URL(string: "https://sp.auth-staging.adobe.com/api/v2")

    /// A header that cannot be read, in the package's one error shape (swift-certificates' `CertificateError`):
    /// Adobe's Enhanced Error `code` for it (`invalid_header_device_identifier`, …), a `reason` that names the header
    /// and what was wrong (never its value), and the `file` and `line` it was made on. Equal on the code.
    public struct HeaderError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Adobe's Enhanced Error codes for a header: the wire code is ``rawValue``, answered as it is.
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public init(stringLiteral value: String) { self.rawValue = value }
            public var description: String { rawValue }

            /// `AP-Device-Identifier` cannot be read.
            public static let invalidDeviceIdentifier = Code(rawValue: "invalid_header_device_identifier")
            /// `X-Device-Info` cannot be read or lacks a required key.
            public static let invalidDeviceInfo = Code(rawValue: "invalid_header_device_info")
            /// `AP-Partner-Framework-Status` cannot be read.
            public static let invalidPartnerFrameworkStatus = Code(rawValue: "invalid_header_pfs_permission_access_not_present")
            /// `AP-TempPass-Identity` cannot be read.
            public static let invalidTempPassIdentity = Code(rawValue: "invalid_header_identity_for_temporary_access")
        }

        /// Adobe's Enhanced Error code for the header; two errors are equal when their codes are.
        public var code: Code { backing.code }
        /// What was wrong, naming the header, never quoting its value.
        public var reason: String { backing.reason }
        /// The file (`#fileID`) the error was made in, for diagnosis.
        public var file: String { backing.file }
        /// The line the error was made on, for diagnosis.
        public var line: UInt { backing.line }

        private let backing: Backing

        /// An error of `code`, made at `file`:`line` (the caller's by default); keep the header's value out of `reason`.
        public init(code: Code, reason: String, file: String = #fileID, line: UInt = #line) {
            backing = Backing(code: code, reason: reason, file: file, line: line)
        }

        /// An error of the wire code `code`, made at `file`:`line` (the caller's by default); keep the header's value
        /// out of `reason`.
        public init(code: String, reason: String, file: String = #fileID, line: UInt = #line) {
            self.init(code: Code(rawValue: code), reason: reason, file: file, line: line)
        }

        /// `HeaderError.code: reason (file:line)`: for logs and diagnosis. Answer clients with ``code`` and ``reason``.
        public var description: String { "HeaderError.\(code): \(reason) (\(file):\(line))" }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        /// The error's storage: one reference, so that the error stays one word wide.
        private final class Backing: Sendable {
            let code: Code
            let reason: String
            let file: String
            let line: UInt

            init(code: Code, reason: String, file: String, line: UInt) {
                self.code = code
                self.reason = reason
                self.file = file
                self.line = line
            }
        }
    }

    /// The JSON object a Base64 header carries, after the size, Base64 and depth checks.
    static func jsonObject(base64 text: String, code: HeaderError.Code, header: String) throws(HeaderError) -> [String: Any] {
        let bytes = try decodeBase64(text, code: code, header: header)
        guard JSONDepth.isWithin(bytes, maximumDepth: maximumJSONDepth) else {
            throw HeaderError(code: code, reason: "\(header) nests JSON deeper than \(maximumJSONDepth) levels")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw HeaderError(code: code, reason: "\(header) is not a Base64 JSON object")
        }
        return object
    }

    /// Standard Base64 (padding optional, no white space) of at most ``maximumHeaderBytes`` characters.
    static func decodeBase64(_ text: String, code: HeaderError.Code, header: String) throws(HeaderError) -> [UInt8] {
        guard !text.isEmpty else { throw HeaderError(code: code, reason: "\(header) is empty") }
        guard text.utf8.count <= maximumHeaderBytes else {
            throw HeaderError(code: code, reason: "\(header) is over \(maximumHeaderBytes) bytes")
        }
        var padded = text
        if padded.utf8.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.utf8.count % 4) }
        guard padded.utf8.allSatisfy({ Self.base64Alphabet.contains($0) }), let data = Data(base64Encoded: padded) else {
            throw HeaderError(code: code, reason: "\(header) is not standard Base64")
        }
        return Array(data)
    }

    static let base64Alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)

    /// Base64 of the JSON text of `values`, keys sorted and `/` as it is: the form a Base64 JSON header is sent in.
    static func base64JSON(_ values: [String: String]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return data.base64EncodedString()
    }

    /// Checks that `encoded`, the form a value just read is sent in again, is within ``maximumHeaderBytes``, so that
    /// whatever reads a header also reads it once re-encoded. The two can differ in size: a number is sent again as a
    /// string and a JSON escape as its character, and a sender may have sent white space or keys that are left out.
    static func checkReencoded(_ encoded: String, code: HeaderError.Code, header: String) throws(HeaderError) {
        guard encoded.utf8.count <= maximumHeaderBytes else {
            throw HeaderError(code: code, reason: "\(header) is over \(maximumHeaderBytes) bytes once re-encoded")
        }
    }
}

/// Bracket nesting of JSON text, outside strings: a bound checked before any parser runs.
enum JSONDepth {
    static func isWithin(_ bytes: [UInt8], maximumDepth: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maximumDepth { return false }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return true
    }
}
